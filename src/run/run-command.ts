// `acp-session-host run`: spawns a host, drives N concurrent sessions through it, prints what each answered.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HostClient } from "../client/host-client.js";
import { ConfigError, parseHostOptions } from "../host-options.js";
import { driveSessions } from "./drive.js";
import { ProgressBar } from "./progress.js";
import { parseRunArgs, type RunConfig } from "./run-config.js";
import { buildReport, formatTable, type RunReport } from "./summary.js";

const STDERR_TAIL_BYTES = 4096;

/** Runs the command; resolves to the exit code (0: every session answered, 1: some failed). */
export async function runCommand(argv: readonly string[]): Promise<number> {
  const { config, hostArgs } = parseRunArgs(argv);
  try {
    parseHostOptions(hostArgs);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(`host flags after --: ${error.message}`);
    throw error;
  }
  const cwd = resolve(config.cwd ?? process.cwd());
  if (!isDirectory(cwd)) throw new ConfigError(`--cwd: not an existing directory: ${cwd}`);
  if (config.reconnect && !config.connect)
    throw new ConfigError("--reconnect: needs --connect (a host run spawns is not reconnected to)");
  if (config.connect) {
    if (hostArgs.length > 0)
      throw new ConfigError("--connect: host flags after -- belong to the host you connect to, not to run");
    return runConnected(config, config.connect, cwd);
  }

  // The sessions of a run are throwaway: unless the host is given a state dir, their logs go to a temporary one.
  const ownStateDir = hostArgs.some((arg) => arg === "--state-dir" || arg.startsWith("--state-dir="))
    ? null
    : mkdtempSync(join(tmpdir(), "ash-run-"));
  const removeStateDir = () => ownStateDir && rmSync(ownStateDir, { recursive: true, force: true });
  let client: HostClient | null = null;
  // Interrupted: end the host (it got the terminal's SIGINT too) and remove the temporary state dir before leaving.
  const interrupted = (signal: NodeJS.Signals) => {
    void (client?.dispose() ?? Promise.resolve()).finally(() => {
      removeStateDir();
      process.exit(signal === "SIGINT" ? 130 : 143);
    });
  };
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  try {
    const spawned = performance.now();
    client = await HostClient.spawn({
      hostArgs: ownStateDir ? [...hostArgs, "--state-dir", ownStateDir] : hostArgs,
      stderr: config.hostLogs ? "inherit" : "pipe",
    });
    return await drive(client, config, { args: hostArgs, pid: client.pid, readyMs: performance.now() - spawned }, cwd);
  } finally {
    await client?.dispose();
    removeStateDir();
    process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
  }
}

/** The sessions go to a host someone else started; it keeps their logs (its own state dir). */
async function runConnected(config: RunConfig, url: string, cwd: string): Promise<number> {
  const token = process.env.ACP_SESSION_HOST_TOKEN;
  const connecting = performance.now();
  let client: HostClient;
  try {
    client = await HostClient.connect(url, { ...(token ? { token } : {}), reconnect: config.reconnect });
  } catch (error) {
    process.stderr.write(
      `acp-session-host run: cannot connect to ${url}: ${(error as Error).message.split("\n")[0]}\n`,
    );
    return 1;
  }
  try {
    return await drive(client, config, { args: [url], pid: null, readyMs: performance.now() - connecting }, cwd);
  } finally {
    await client.dispose();
  }
}

async function drive(client: HostClient, config: RunConfig, host: RunReport["host"], cwd: string): Promise<number> {
  let stderrTail = "";
  client.child?.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });

  const bar = ProgressBar.forStream(process.stderr);
  bar?.update({ done: 0, total: config.sessions * config.turns, failed: 0 });
  const started = performance.now();
  const runs = await driveSessions(client, {
    sessions: config.sessions,
    prompt: config.prompt,
    turns: config.turns,
    cwd,
    ...(config.mode ? { mode: config.mode } : {}),
    onProgress: (progress) => bar?.update(progress),
  });
  const wallMs = performance.now() - started;
  bar?.clear();

  const report = buildReport(runs, host, config.turns, wallMs);
  if (config.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else process.stdout.write(`${formatTable(report, process.stdout.columns ?? 120)}\n`);

  await client.dispose();
  if (report.summary.failed > 0 && stderrTail) {
    process.stderr.write(
      `acp-session-host run: ${report.summary.failed} session(s) failed; the host's last log lines:\n${lastLines(stderrTail, 10)}\n`,
    );
  }
  return report.summary.failed > 0 ? 1 : 0;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
}
