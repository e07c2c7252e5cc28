// `acp-session-host demo` (npm run demo): the job the host is for, shown on a dozen sessions at once over one
// connection. Each session works in a workspace of its own: most write a small project, run its test in the sandbox,
// find and fix the bug, grep, build and answer; one tries to read a neighbour's workspace and is refused; one's worker
// crashes mid-task and the next prompt restores it from its log; one is cancelled and then goes on; one is read-only.
// On the embedded scripted model by default (no network); with --base-url and --model, the same tasks in words to a
// real model. Ends with a table per session and the host's own figures, and exits non-zero when a session did not do
// what it should, so the demo is also a test; a failed session is shown with what the host said of it (its log's
// warnings and errors, the failed tool calls' output). Without a sandbox it stops before any session starts.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionUpdate, StopReason } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import { HostClient, type PromptResult, type ToolCallSummary } from "../../client/index.js";
import { ConfigError, flagsHelp, parseFlags, type Options } from "../../flags.js";
import { checkCalls, checkTask, demoTasks, taskPrompts, type DemoTask } from "./demo-tasks.js";
import { LiveView, type SessionLine } from "./demo-view.js";
import { HostReasons } from "./host-reasons.js";
import { sandboxProblem } from "../machine-checks.js";

const flag = z.union([z.boolean(), z.enum(["true", "false"])]).transform((value) => value === true || value === "true");

export const DemoConfig = z.object({
  sessions: z.coerce
    .number()
    .int()
    .min(5)
    .max(64)
    .default(12)
    .describe("sessions driven at once (the last four are the neighbour, crash, cancel and read-only cases)"),
  "base-url": z
    .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
    .optional()
    .describe("run the tasks on this OpenAI-compatible endpoint instead of the scripted model"),
  model: z.string().min(1).optional().describe("the model at --base-url"),
  "api-key-env": z
    .string()
    .min(1)
    .optional()
    .describe("environment variable holding its API key (default OPENAI_API_KEY)"),
  json: flag.default(false).describe("print one JSON document instead of the table"),
  "host-logs": flag.default(false).describe("pass the host's JSON logs through to stderr"),
});
type DemoConfig = Options<z.infer<typeof DemoConfig>>;

export function demoUsage(): string {
  return `usage: acp-session-host demo [flags]\n\n${header()}\n\nflags:\n${flagsHelp(DemoConfig)}\n`;
}

function header(): string {
  return "Drives a dozen sessions through small real tasks over one connection, live, and checks what each did.";
}

interface SessionResult {
  task: DemoTask;
  /** Null until session/new answered. */
  sessionId: string | null;
  stopReasons: Array<StopReason | "error">;
  /** The tool calls of the turns that answered (a crashed turn's are lost with its answer). */
  toolCalls: ToolCallSummary[];
  /** Every tool call the session started, a crashed turn's too: what the live view and the table both count. */
  toolCallsStarted: number;
  /** What happened to it, in the words a reader needs (the refusal, the crash and its restore, the cancel). */
  story: string[];
  wallMs: number;
  turnMs: number[];
  problem: string | null;
}

export async function demoCommand(argv: readonly string[]): Promise<number> {
  const config = parseFlags(DemoConfig, argv);
  if ((config.baseUrl === undefined) !== (config.model === undefined))
    throw new ConfigError("--base-url and --model go together");
  const scripted = config.baseUrl === undefined;
  // Every task runs commands in the sandbox: without one, stop before any session starts, saying what to install.
  const missing = sandboxProblem();
  if (missing) {
    process.stderr.write(
      `acp-session-host demo: the sessions run their commands in bubblewrap's sandbox, which this machine cannot make:\n` +
        `  ${missing.text}\n` +
        `No session was started.\n`,
    );
    return 1;
  }
  const root = mkdtempSync(join(tmpdir(), "ash-demo-"));
  const stateDir = join(root, ".state");
  const tasks = demoTasks(config.sessions);
  for (const task of tasks) mkdirSync(join(root, task.name), { recursive: true });
  const hostArgs = [
    "--state-dir",
    stateDir,
    "--default-mode",
    "auto",
    "--hibernate-after-ms",
    "0",
    ...(scripted
      ? ["--allow-fault-injection"]
      : ["--model-provider", "openai-compatible", "--base-url", config.baseUrl!, "--model", config.model!]),
    ...(config.apiKeyEnv ? ["--api-key-env", config.apiKeyEnv] : []),
  ];
  const reasons = new HostReasons();
  const client = await HostClient.spawn({
    hostArgs,
    stderr: (line) => {
      reasons.line(line);
      if (config.hostLogs) process.stderr.write(`${line}\n`);
    },
    permission: "allow",
  }).catch((error: unknown) => {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`the host did not start (${(error as Error).message}); it said:\n  ${reasons.tail().join("\n  ")}`);
  });
  try {
    const started = performance.now();
    const lines: SessionLine[] = tasks.map((task) => ({
      name: task.name,
      state: "starting",
      activity: "",
      toolCalls: 0,
    }));
    const view = config.json ? null : new LiveView(process.stderr);
    const ticker = setInterval(() => view?.update(lines), 100);
    const running: Array<Promise<SessionResult>> = [];
    for (const [index, task] of tasks.entries()) {
      // The neighbour task reads the first project's notes: it is told when that project failed instead.
      const first = running[tasks.findIndex((other) => other.kind === "project")] ?? null;
      running.push(runTask(client, task, root, tasks, scripted, lines[index]!, () => view?.update(lines), first));
    }
    const results = await Promise.all(running);
    clearInterval(ticker);
    view?.update(lines, true);
    const wallMs = performance.now() - started;
    const stats = await client.stats();
    const turns = results.flatMap((result) => result.turnMs).sort((a, b) => a - b);
    const host = {
      workerThreads: stats.threads.workers,
      processThreads: stats.threads.process,
      rssMiB: stats.memory.rssBytes / 2 ** 20,
      turnP50Ms: turns[Math.floor(turns.length / 2)] ?? 0,
      wallMs,
    };
    const failed = results.filter((result) => result.problem !== null).length;
    if (config.json)
      process.stdout.write(
        `${JSON.stringify({ sessions: results.map(({ task, ...rest }) => ({ name: task.name, kind: task.kind, ...rest, toolCalls: rest.toolCallsStarted })), host, failed }, null, 2)}\n`,
      );
    else process.stdout.write(`${table(results, host, scripted)}\n`);
    if (failed > 0) process.stderr.write(hostSaid(results, reasons));
    return failed > 0 ? 1 : 0;
  } finally {
    await client.dispose();
    rmSync(root, { recursive: true, force: true });
  }
}

async function runTask(
  client: HostClient,
  task: DemoTask,
  root: string,
  tasks: readonly DemoTask[],
  scripted: boolean,
  line: SessionLine,
  redraw: () => void,
  firstProject: Promise<SessionResult> | null,
): Promise<SessionResult> {
  const own = join(root, task.name);
  // Its neighbour: the next project's workspace (whose notes the neighbour task tries to read).
  const neighbour = join(root, tasks.find((other) => other.kind === "project")?.name ?? task.name);
  const result: SessionResult = {
    task,
    sessionId: null,
    stopReasons: [],
    toolCalls: [],
    toolCallsStarted: 0,
    story: [],
    wallMs: 0,
    turnMs: [],
    problem: null,
  };
  const started = performance.now();
  try {
    // The neighbour's notes exist before they are read: what stops the read is the sandbox, not their absence.
    if (task.kind === "neighbour") {
      line.activity = "waiting for the neighbour's notes";
      let failed: string | null = null;
      void firstProject?.then((project) => {
        if (project.problem !== null && !existsSync(join(neighbour, "NOTES.md")))
          failed = `its neighbour ${project.task.name} failed before writing NOTES.md: ${project.problem}`;
      });
      await waitForFile(join(neighbour, "NOTES.md"), () => failed);
    }
    const { sessionId } = await client.newSession(own, task.mode ? { mode: task.mode } : {});
    result.sessionId = sessionId;
    line.state = "working";
    line.activity = "thinking";
    for (const prompt of taskPrompts(task, { own, neighbour }, scripted)) {
      const onUpdate = (update: SessionUpdate) => {
        if (update.sessionUpdate === "tool_call") {
          line.toolCalls = ++result.toolCallsStarted;
          line.activity = update.title;
        } else if (
          update.sessionUpdate === "tool_call_update" &&
          update.status === "in_progress" &&
          prompt.cancelOnTool
        ) {
          line.activity = "cancelling";
          void client.cancel(sessionId);
        } else if (update.sessionUpdate === "agent_message_chunk") line.activity = "answering";
        redraw();
      };
      const sent = performance.now();
      try {
        const turn = await client.prompt(sessionId, prompt.text, { onUpdate });
        result.turnMs.push(performance.now() - sent);
        result.stopReasons.push(turn.stopReason);
        result.toolCalls.push(...turn.toolCalls);
        if (prompt.expectError) result.problem ??= "the worker was to crash mid-task, but the turn ended";
        if (prompt.cancelOnTool && turn.stopReason !== "cancelled")
          result.problem ??= `the cancelled turn ended ${turn.stopReason}`;
        if (!prompt.cancelOnTool && turn.stopReason !== "end_turn")
          result.problem ??= `a turn ended ${turn.stopReason}`;
        result.story.push(turnStory(task, turn, result.stopReasons.length));
      } catch (error) {
        result.stopReasons.push("error");
        if (!prompt.expectError) result.problem ??= `a prompt failed: ${(error as Error).message}`;
        else line.activity = "worker crashed: the next prompt restores it from its log";
        result.story.push(
          `its worker crashed mid-task (the prompt was answered: ${firstLines((error as Error).message)})`,
        );
      }
    }
    result.problem ??= checkCalls(task, result.toolCalls) ?? checkTask(task, own, neighbour);
  } catch (error) {
    result.problem = `the session failed: ${(error as Error).message}`;
  }
  result.wallMs = performance.now() - started;
  line.state = result.problem ? "failed" : "done";
  line.activity = result.problem ?? `${result.stopReasons.join(" → ")} in ${(result.wallMs / 1000).toFixed(1)}s`;
  redraw();
  return result;
}

/** What one turn of a session that is not a project did, in a line: the refusal's words, the restore, the cancel. */
function turnStory(task: DemoTask, turn: PromptResult, turnNumber: number): string {
  const refused = turn.toolCalls.filter((call) => call.status === "failed");
  switch (task.kind) {
    case "neighbour": {
      const first = refused[0];
      return first
        ? `${refused.length} of ${turn.toolCalls.length} reads of its neighbour's workspace refused, e.g. ${first.title}: ${firstLines(first.output || outputOf(first.rawOutput))}`
        : `no read of its neighbour's workspace was refused (${turn.toolCalls.length} tool calls)`;
    }
    case "crash":
      return turnNumber === 1
        ? `ended ${turn.stopReason}`
        : `its next prompt restored it from its log and ended ${turn.stopReason} (${turn.toolCalls.length} tool calls)`;
    case "cancel":
      return turn.stopReason === "cancelled"
        ? `cancelled while ${turn.toolCalls.at(-1)?.title ?? "no tool"} ran: the turn ended cancelled`
        : `the next prompt was taken at once and ended ${turn.stopReason}`;
    case "read-only":
      return `${refused.length} of ${turn.toolCalls.length} tool calls refused in read-only mode${refused[0] ? `, e.g. ${refused[0].title}` : ""}`;
    case "project":
      return "";
  }
}

/** Each failed session with what the host logged about it (and about itself): the cause, not only the symptom. */
function hostSaid(results: SessionResult[], reasons: HostReasons): string {
  const lines = ["", "what the host logged about the sessions that failed:"];
  for (const result of results.filter((result) => result.problem !== null)) {
    const said = reasons.about(result.sessionId);
    // The host's answer to each tool call that failed: what a command in the sandbox said, or why it did not run.
    const calls = result.toolCalls
      .filter((call) => call.status === "failed")
      .map((call) => `${call.title}: ${firstLines(call.output || outputOf(call.rawOutput))}`);
    lines.push(`  ${result.task.name}: ${result.problem}`);
    if (said.length === 0 && calls.length === 0)
      lines.push("    the host logged no warning or error about it, and no tool call of it failed");
    for (const text of said.slice(0, 5)) lines.push(`    host: ${text}`);
    for (const text of calls.slice(0, 3)) lines.push(`    failed tool call: ${text}`);
  }
  return `${lines.join("\n")}\n`;
}

function outputOf(raw: unknown): string {
  const output = (raw as { output?: unknown } | null)?.output;
  return typeof output === "string" ? output : JSON.stringify(raw ?? null);
}

function firstLines(text: string): string {
  const lines = text.trim().split("\n");
  return lines.slice(0, 3).join(" / ") + (lines.length > 3 ? " / …" : "");
}

/** Until `path` exists; throws what `failed` says once it says something (the file will not come). */
async function waitForFile(path: string, failed: () => string | null): Promise<void> {
  for (let waited = 0; !existsSync(path); waited += 50) {
    const why = failed();
    if (why !== null) throw new Error(why);
    if (waited > 60_000) throw new Error(`${path} never appeared`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function table(
  results: SessionResult[],
  host: { workerThreads: number; processThreads: number | null; rssMiB: number; turnP50Ms: number; wallMs: number },
  scripted: boolean,
): string {
  const header = ["session", "task", "stop reasons", "tools", "wall s", "result"];
  const rows = results.map((result) => [
    result.task.name,
    result.task.kind + (result.task.mode ? ` (${result.task.mode})` : ""),
    result.stopReasons.join(" → "),
    String(result.toolCallsStarted),
    (result.wallMs / 1000).toFixed(1),
    result.problem === null ? "✓" : `✗ ${result.problem}`,
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const format = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 3 || i === 4 ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  const ok = results.filter((result) => result.problem === null).length;
  const stories = results
    .filter((result) => result.task.kind !== "project" && result.story.length > 0)
    .map((result) => `${result.task.name}: ${result.story.filter(Boolean).join("; then ")}`);
  return [
    format(header),
    ...rows.map(format),
    "",
    ...stories,
    "",
    `${ok}/${results.length} sessions did what they should, in ${(host.wallMs / 1000).toFixed(1)} s on ${scripted ? "the embedded scripted model" : "the model you named"}.`,
    `host: ${host.workerThreads} session worker threads (${host.processThreads ?? "?"} threads in all), RSS ${host.rssMiB.toFixed(0)} MiB, a prompt's p50 ${host.turnP50Ms.toFixed(0)} ms.`,
  ].join("\n");
}
