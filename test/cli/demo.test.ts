// `npm run demo` is also a test: a dozen sessions through real tasks over one connection (projects built and tested in
// their sandboxes, a refused read of a neighbour's workspace, a worker crash restored from its log, a cancel, a
// read-only session), each checked by the demo itself; it exits non-zero when one did not do what it should.
import { spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI } from "../support/cli-path.js";
import { freePort } from "../support/free-port.js";
import { tempDir } from "../support/host.js";

interface DemoReport {
  sessions: Array<{
    name: string;
    kind: string;
    stopReasons: string[];
    toolCalls: number;
    story: string[];
    problem: string | null;
  }>;
  host: { workerThreads: number; rssMiB: number };
  failed: number;
}

describe("npm run demo", () => {
  it("drives twelve sessions through their tasks, and every one does what it should", { timeout: 120_000 }, () => {
    const result = spawnSync(process.execPath, [CLI, "demo", "--json"], { encoding: "utf8", timeout: 110_000 });
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as DemoReport;
    expect(report.failed).toBe(0);
    expect(report.sessions).toHaveLength(12);
    expect(report.sessions.every((session) => session.problem === null)).toBe(true);
    const byKind = (kind: string) => report.sessions.filter((session) => session.kind === kind);
    expect(byKind("project")).toHaveLength(8);
    for (const project of byKind("project")) expect(project).toMatchObject({ stopReasons: ["end_turn"], toolCalls: 9 });
    expect(byKind("crash")[0]!.stopReasons).toEqual(["error", "end_turn"]);
    expect(byKind("cancel")[0]!.stopReasons).toEqual(["cancelled", "end_turn"]);
    // The crashed turn's tool calls count too: the live view counts every tool call the session started.
    expect(byKind("crash")[0]!.toolCalls).toBe(3);
    // What the neighbour, crash and cancel sessions did, in a line each, as the table's last screen shows them.
    expect(byKind("neighbour")[0]!.story).toEqual([
      expect.stringMatching(
        /^2 of 2 reads of its neighbour's workspace refused, e\.g\. cat .*NOTES\.md: cat: .*No such file or directory$/,
      ),
    ]);
    expect(byKind("crash")[0]!.story).toEqual([
      expect.stringMatching(/^its worker crashed mid-task \(the prompt was answered: session worker died: /),
      "its next prompt restored it from its log and ended end_turn (2 tool calls)",
    ]);
    expect(byKind("cancel")[0]!.story).toEqual([
      "cancelled while sleep 30 ran: the turn ended cancelled",
      "the next prompt was taken at once and ended end_turn",
    ]);
  });

  it("without bubblewrap, stops before starting a session and says what is missing and what installs it", () => {
    // A PATH with node on it and nothing else: no bwrap.
    const bin = tempDir();
    symlinkSync(process.execPath, join(bin, "node"));
    const result = spawnSync(process.execPath, [CLI, "demo"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, PATH: bin },
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain("bubblewrap's sandbox");
    expect(result.stderr).toContain("bwrap not found; install: apt-get install -y bubblewrap");
    expect(result.stderr).toContain("No session was started.");
    // Neither the live view nor the table: no session ran.
    expect(result.stdout).toBe("");
    expect(result.stderr).not.toContain("project-calc");
  });

  it("a session that fails is shown with the host's own reason, and the neighbour with its neighbour's", async () => {
    // A model endpoint where nothing listens: every prompt fails in the host's model gateway, after its retries.
    const port = await freePort();
    const result = spawnSync(
      process.execPath,
      [CLI, "demo", "--sessions", "5", "--base-url", `http://127.0.0.1:${port}/v1`, "--model", "absent"],
      { encoding: "utf8", timeout: 110_000, env: { ...process.env, OPENAI_API_KEY: "not-used" } },
    );
    expect(result.status, result.stderr).toBe(1);
    const said = result.stderr.slice(result.stderr.indexOf("what the host logged about the sessions that failed:"));
    expect(said).toContain("what the host logged about the sessions that failed:");
    // The host's log line about the session, with its reason, under the session's own failure.
    expect(said).toMatch(
      /project-calc: a prompt failed: model "absent" at .*\n\s+host: model request failed; retrying: /,
    );
    // Not "NOTES.md never appeared" a minute later: the project it waited for, and why that failed.
    expect(said).toContain("neighbour: the session failed: its neighbour project-calc failed before writing NOTES.md");
    expect(said).not.toContain("never appeared");
  }, 120_000);
});
