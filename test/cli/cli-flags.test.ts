// The CLI's flags: validated by zod, a bad one is one line on stderr and exit 2; --help lists every flag.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { HostFlags } from "../../src/host-options.js";
import { RunConfig } from "../../src/run/run-config.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : null) : 0, stdout, stderr });
    });
  });
}

function expectOneLine(outcome: { code: number | null; stdout: string; stderr: string }, mention: string): void {
  expect(outcome.code).toBe(2);
  expect(outcome.stdout).toBe("");
  expect(outcome.stderr.endsWith("\n")).toBe(true);
  expect(outcome.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(outcome.stderr).toMatch(/^acp-session-host: /);
  expect(outcome.stderr).toContain(mention);
}

describe("CLI flags", () => {
  it.each([
    [["run", "--sessions", "0"], "--sessions"],
    [["run", "--sessions", "many"], "--sessions"],
    [["run", "--turns", "1.5"], "--turns"],
    [["run", "--prompt", ""], "--prompt"],
    [["run", "--mode", "yolo"], "--mode"],
    [["run", "--json", "maybe"], "maybe"],
    [["run", "--json=false"], "--json"],
    [["run", "--bogus"], "--bogus"],
    [["run", "--cwd", "/no/such/dir/anywhere"], "--cwd"],
    [["run", "--", "--warm-workers=-1"], "host flags after --: --warm-workers"],
    // node's parseArgs explains this one over three lines: it still comes out as one.
    [["run", "--", "--warm-workers", "-1"], "--warm-workers"],
    [["serve", "--warm-workers", "-1"], "--warm-workers"],
    [["run", "--", "--no-such-host-flag"], "--no-such-host-flag"],
    [["serve", "--max-sessions", "0"], "--max-sessions"],
    [["serve", "--compact-at", "5"], "--compact-at"],
    [["serve", "--compact-at", "101"], "--compact-at"],
    [["serve", "--compact-at", "0.05"], "at least 10% (0.1)"],
    [["serve", "--compact-at", "5%"], "at least 10% (0.1)"],
    [["serve", "--compact-at", "eighty"], "expected a percentage (80 or 80%) or a fraction (0.8)"],
    [["serve", "--log-compact-bytes", "100"], "--log-compact-bytes"],
    [["serve", "--stream-chunks", "sometimes"], "sometimes"],
    [["--log-level", "loud"], "--log-level"],
    [["frobnicate"], "unknown command: frobnicate"],
  ])("%j is refused in one line", async (args, mention) => {
    expectOneLine(await cli(args), mention);
  });

  it("--help lists every host flag with its default, and names the run command", async () => {
    const { code, stdout } = await cli(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("acp-session-host run");
    for (const [name, schema] of Object.entries(HostFlags.shape)) {
      const line = stdout.split("\n").find((l) => l.trimStart().startsWith(`--${name} `));
      expect(line, `--${name}`).toBeDefined();
      const fallback = schema.safeParse(undefined);
      if (fallback.success && fallback.data !== undefined)
        expect(line).toContain(`(default: ${String(fallback.data)})`);
    }
    expect((await cli(["serve", "--help"])).stdout).toBe(stdout);
    // A share is written as a user reads it.
    expect(stdout).toMatch(/--compact-at .*80, 80% or 0\.8 \(a number up to 1 is a fraction\)/);
  });

  it("run --help lists every run flag with its default, even with other flags around it", async () => {
    const { code, stdout } = await cli(["run", "--sessions", "3", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: acp-session-host run \[flags\] \[-- host flags\]/);
    for (const name of Object.keys(RunConfig.shape)) expect(stdout).toMatch(new RegExp(`^  --${name} `, "m"));
    expect(stdout).toMatch(/--sessions .*\(default: 8\)/);
    expect(stdout).toMatch(/--turns .*\(default: 1\)/);
    expect(stdout).toMatch(/--json .*\(default: false\)/);
    expect(stdout).toMatch(/--cwd .*current directory/);
  });

  it("--help after -- belongs to the host flags, which are then checked", async () => {
    expectOneLine(await cli(["run", "--", "--help"]), "--help");
  });
});
