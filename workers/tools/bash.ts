// bash, bash_output, bash_kill: commands run by the spawner process in a process group of their own, sandboxed as
// the session's mode says. Foreground output streams to the client as deltas; the model gets a capped result.
import * as z from "zod/mini";
import type { TaskEnd } from "../../src/protocol/spawner-replies.js";
import { CappedOutput, DeltaStream } from "./output-cap.js";
import { commandPolicy, readPolicy, sandboxFor } from "./policy.js";
import type { SpawnerConnection } from "./spawner-connection.js";
import type { Tool, ToolResult } from "./tool.js";

const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_TIMEOUT_MS = 3_600_000;
/** Output deltas streamed to the client per call; past this, one notice and the rest only in the output file. */
const STREAM_LIMIT_BYTES = 1024 * 1024;

export interface BashDeps {
  connection: SpawnerConnection;
  outputCapBytes: number;
}

const BashInput = z.lazy(() =>
  z.object({
    command: z.string().check(z.minLength(1), z.describe("The bash command line to run, in the session's workspace")),
    timeout_ms: z.optional(
      z
        .int()
        .check(
          z.positive(),
          z.maximum(MAX_TIMEOUT_MS),
          z.describe(`Foreground only: kill the command after this many milliseconds (default ${DEFAULT_TIMEOUT_MS})`),
        ),
    ),
    run_in_background: z.optional(
      z.boolean().check(z.describe("Start the command and return a task id at once; read it with bash_output")),
    ),
  }),
);
type BashInput = z.infer<typeof BashInput>;

const TaskInput = z.lazy(() =>
  z.object({
    task_id: z.string().check(z.minLength(1), z.describe("The id bash returned for a background command")),
  }),
);
type TaskInput = z.infer<typeof TaskInput>;

export function bashTools(deps: BashDeps): Tool[] {
  const bash: Tool<BashInput> = {
    name: "bash",
    description:
      "Run a bash command in the workspace. Returns its exit code and combined stdout/stderr (long output is cut in the middle). " +
      "With run_in_background, returns a task id at once.",
    kind: "execute",
    input: BashInput,
    title: (input) => oneLine(input.command),
    policy: commandPolicy,
    async run(input, context): Promise<ToolResult> {
      const sandbox = sandboxFor(context.mode);
      if (input.run_in_background) {
        const outcome = await deps.connection.run({
          command: input.command,
          sandbox,
          timeoutMs: null,
          background: true,
        });
        if (outcome.kind === "error") return { output: outcome.message, isError: true };
        if (outcome.kind !== "started") return { output: "the background command did not start", isError: true };
        return {
          output: `started background task ${outcome.taskId} (sandbox: ${sandbox}). Read its output with bash_output, stop it with bash_kill.`,
          isError: false,
        };
      }
      const timeoutMs = input.timeout_ms ?? DEFAULT_TIMEOUT_MS;
      const span = context.trace?.open("sandbox.exec", "internal", { "acp_host.sandbox": sandbox }) ?? null;
      const capped = new CappedOutput(deps.outputCapBytes);
      let outputFile = "";
      const where = () => (outputFile ? `the full output is in ${outputFile}` : "the full output is kept by the host");
      const stream = new DeltaStream(context.emitOutput, STREAM_LIMIT_BYTES);
      // The spawner sends what can be streamed or kept (and one byte more, so the stream knows it was cut); of the
      // rest, only the end the model keeps.
      const half = Math.ceil(deps.outputCapBytes / 2);
      const outcome = await deps.connection.run(
        {
          command: input.command,
          sandbox,
          timeoutMs,
          background: false,
          forwardBytes: Math.max(STREAM_LIMIT_BYTES + 1, half),
          tailBytes: half,
        },
        {
          signal: context.signal,
          onStarted: (file) => (outputFile = file),
          onOutput: (text) => {
            capped.push(text);
            stream.push(text, where);
            // The spawner pauses the command while this connection is not read: its output waits in its pipe.
            const room = context.outputRoom();
            if (room) deps.connection.pauseWhile(room);
          },
        },
      );
      if (outcome.kind !== "exited") {
        span?.fail("spawn_failed", outcome.kind === "error" ? outcome.message : "not run in the foreground").end();
        if (outcome.kind === "error") return { output: outcome.message, isError: true };
        return { output: "the command did not run in the foreground", isError: true };
      }
      if (span) {
        span.set("acp_host.command.end", outcome.end.reason).set("acp_host.command.output_bytes", outcome.totalBytes);
        if (outcome.end.exitCode !== null) span.set("process.exit.code", outcome.end.exitCode);
        if (outcome.end.reason !== "exited") span.fail(outcome.end.reason, describeEnd(outcome.end, { timeoutMs }));
        span.end();
      }
      outputFile = outcome.outputFile;
      if (outcome.tail !== null) capped.endWith(outcome.tail, outcome.totalBytes);
      const body = capped.render(where());
      const status = describeEnd(outcome.end, { timeoutMs });
      return {
        output: withLine(body, `[${status}]`),
        isError: outcome.end.reason !== "exited" || outcome.end.exitCode !== 0,
      };
    },
  };

  const bashOutput: Tool<TaskInput> = {
    name: "bash_output",
    description:
      "Output a background task produced since the previous read, and whether it is still running or how it ended.",
    kind: "read",
    input: TaskInput,
    title: (input) => `Output of ${input.task_id}`,
    policy: readPolicy,
    async run(input): Promise<ToolResult> {
      const reply = await deps.connection.read(input.task_id);
      if (reply.type === "error") return { output: reply.message, isError: true };
      const capped = new CappedOutput(deps.outputCapBytes);
      capped.push(reply.output);
      const where = `the full output is in ${reply.outputFile}`;
      let output = capped.render(where);
      if (reply.droppedBytes > 0)
        output = withLine(output, `[${reply.droppedBytes} bytes of earlier unread output were let go of; ${where}]`);
      output = withLine(
        output,
        reply.end
          ? `[task ${input.task_id} ended: ${describeEnd(reply.end)}]`
          : `[task ${input.task_id} is still running]`,
      );
      return { output, isError: false };
    },
  };

  const bashKill: Tool<TaskInput> = {
    name: "bash_kill",
    description: "Stop a background task: its whole process group is terminated (SIGTERM, then SIGKILL).",
    kind: "execute",
    input: TaskInput,
    title: (input) => `Kill ${input.task_id}`,
    policy: readPolicy,
    async run(input): Promise<ToolResult> {
      const reply = await deps.connection.kill(input.task_id);
      if (reply.type === "error") return { output: reply.message, isError: true };
      if (reply.wasRunning) return { output: `killed task ${input.task_id} and its process group`, isError: false };
      return { output: `task ${input.task_id} had already ended: ${describeEnd(reply.end)}`, isError: false };
    },
  };

  return [bash as Tool, bashOutput as Tool, bashKill as Tool];
}

function describeEnd(end: TaskEnd, options: { timeoutMs?: number } = {}): string {
  switch (end.reason) {
    case "exited":
      return end.signal ? `killed by ${end.signal}` : `exit code ${end.exitCode}`;
    case "killed":
      return "killed: the command and its process group were terminated";
    case "timeout":
      return `timed out after ${options.timeoutMs ?? "?"} ms: the command and its process group were killed`;
    case "sandbox_failed":
    case "spawn_failed":
      return `${end.detail ?? "the command could not start"}; it did not run`;
  }
}

/** Appends a line to output that may or may not end with a newline. */
function withLine(output: string, line: string): string {
  return `${output}${output.length > 0 && !output.endsWith("\n") ? "\n" : ""}${line}`;
}

function oneLine(command: string): string {
  const first = command.split("\n", 1)[0]!;
  const line = first.length > 100 ? `${first.slice(0, 100)}…` : first;
  return command.includes("\n") && !line.endsWith("…") ? `${line} …` : line;
}
