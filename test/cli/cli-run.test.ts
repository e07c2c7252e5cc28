// `acp-session-host run` end to end: the real CLI spawns a real host and drives real sessions through it.
import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 120_000, env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

interface RunJson {
  host: { args: string[]; pid: number };
  sessions: Array<{
    index: number;
    sessionId: string;
    stopReason: string;
    promptMs: number[];
    latencyMs: number;
    answer: string;
    firstLine: string;
    error: string | null;
  }>;
  summary: {
    sessions: number;
    turns: number;
    endTurn: number;
    failed: number;
    promptLatencyMs: { p50: number; max: number };
  };
}

describe("acp-session-host run", () => {
  it("--json: every session ends its turn with the echo, and the document adds up; nothing is left on disk", async () => {
    const xdgState = tempDir();
    const tmp = tempDir();
    const env = { ...process.env, XDG_STATE_HOME: xdgState, TMPDIR: tmp };
    const { code, stdout, stderr } = await cli(
      ["run", "--sessions", "4", "--prompt", "hi from the test", "--json", "--cwd", tempDir()],
      env,
    );
    expect(code).toBe(0);
    // stderr is not a terminal here: no progress bar, nothing at all.
    expect(stderr).toBe("");
    const report = JSON.parse(stdout) as RunJson;
    expect(report.sessions).toHaveLength(4);
    expect(report.sessions.map((s) => s.index)).toEqual([1, 2, 3, 4]);
    expect(new Set(report.sessions.map((s) => s.sessionId)).size).toBe(4);
    for (const session of report.sessions) {
      expect(session.stopReason).toBe("end_turn");
      expect(session.answer).toBe("You said: hi from the test");
      expect(session.firstLine).toBe("You said: hi from the test");
      expect(session.error).toBeNull();
      expect(session.promptMs).toHaveLength(1);
      expect(session.latencyMs).toBe(session.promptMs[0]);
    }
    expect(report.summary).toMatchObject({ sessions: 4, turns: 1, endTurn: 4, failed: 0 });
    // The summary's latencies are the sessions' own prompts ranked: the 2nd of 4 is the median, the 4th the max.
    const ranked = report.sessions.flatMap((s) => s.promptMs).sort((a, b) => a - b);
    expect(report.summary.promptLatencyMs).toMatchObject({ p50: ranked[1], max: ranked[3] });
    // The run's sessions were logged in a temporary state dir, now gone; the user's state dir was never touched.
    expect(readdirSync(tmp)).toEqual([]);
    expect(readdirSync(xdgState)).toEqual([]);
  });

  it("--turns sends several prompts per session and flags after -- reach the host", async () => {
    const { code, stdout } = await cli([
      "run",
      "--sessions",
      "2",
      "--turns",
      "3",
      "--prompt",
      "again",
      "--json",
      "--",
      "--warm-workers",
      "0",
      "--max-sessions",
      "2",
    ]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as RunJson;
    expect(report.host.args).toEqual(["--warm-workers", "0", "--max-sessions", "2"]);
    expect(report.sessions.map((s) => s.promptMs.length)).toEqual([3, 3]);
    expect(report.summary).toMatchObject({ sessions: 2, turns: 3, endTurn: 2, failed: 0 });
  });

  it("the host's own flags are enforced: --max-turn-requests 1 stops a turn that wants a second model request", async () => {
    const script = `/script [{"tool":"no_such_tool","input":{}},{"say":"after the tool"}]`;
    const limited = await cli([
      "run",
      "--sessions",
      "2",
      "--json",
      "--prompt",
      script,
      "--",
      "--max-turn-requests",
      "1",
    ]);
    expect(limited.code).toBe(0);
    const report = JSON.parse(limited.stdout) as RunJson;
    expect(report.sessions.map((s) => s.stopReason)).toEqual(["max_turn_requests", "max_turn_requests"]);
    expect(report.summary).toMatchObject({ sessions: 2, endTurn: 0, failed: 0 });
    const unlimited = JSON.parse(
      (await cli(["run", "--sessions", "1", "--json", "--prompt", script])).stdout,
    ) as RunJson;
    expect(unlimited.sessions[0]).toMatchObject({ stopReason: "end_turn", answer: "after the tool" });
  });

  it("prints a table: a header, one row per session with its stop reason and answer, and the totals", async () => {
    const { code, stdout } = await cli(["run", "--sessions", "3", "--prompt", "line one\nline two"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^acp-session-host run: 3 sessions × 1 prompt, host ready in [\d.]+ ms$/);
    expect(lines[2]).toMatch(/^#\s+session\s+stop\s+new ms\s+prompt ms\s+answer$/);
    const rows = lines.slice(3, 6);
    rows.forEach((row, i) =>
      expect(row).toMatch(
        new RegExp(`^${i + 1}\\s+[0-9a-f]{8}\\s+end_turn\\s+[\\d.]+\\s+[\\d.]+\\s+You said: line one$`),
      ),
    );
    expect(lines.at(-1)).toMatch(
      /^3\/3 end_turn · wall [\d.]+ s · prompt latency p50 [\d.]+ ms, p95 [\d.]+ ms, max [\d.]+ ms · [\d.]+ prompts\/s$/,
    );
  });

  it("a prompt the host refuses shows as an error row with the host's message", async () => {
    const { code, stdout } = await cli(["run", "--sessions", "2", "--json", "--prompt", `/script [{"crash":"boom"}]`]);
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as RunJson;
    expect(report.summary).toMatchObject({ endTurn: 0, failed: 2 });
    for (const session of report.sessions) {
      expect(session.stopReason).toBe("error");
      expect(session.sessionId).not.toBeNull();
      expect(session.error).toContain("--allow-fault-injection");
    }
  });
});
