// The spawner's two channels, validated with zod on every receiving side:
// - control: the host main thread ↔ the spawner process, newline-delimited JSON on the spawner's stdin/stdout;
// - session: a session worker ↔ the spawner, newline-delimited JSON on a unix socket. A connection belongs to the
//   session its one-time token was granted for by the main thread; no message on it names a session.
import * as z from "zod/mini";

/** How a command is confined: bwrap read-only, bwrap workspace-write, or not at all (full-access). */
export const SandboxKind = z.enum(["read-only", "workspace-write", "none"]);
export type SandboxKind = z.infer<typeof SandboxKind>;

/** The spawner's argv[2] (JSON). */
export const SpawnerOptions = z.object({
  /** null: bubblewrap was not found; sandboxed commands fail closed. */
  bwrapPath: z.nullable(z.string()),
  network: z.boolean(),
  allowFullAccess: z.boolean(),
  maxBackgroundTasks: z.int().check(z.positive()),
  /** Paths no sandboxed command may see, e.g. the host's state dir with every session's log. */
  hidden: z._default(z.array(z.string()), []),
  /** How long a worker's hello may wait for its grant (the main thread sends the grant as the worker starts). */
  grantWaitMs: z._default(z.int().check(z.positive()), 2000),
  /** Where the spawner makes its runtime directory (src/spawner/runtime-parent.ts chooses when unset). */
  runtimeParent: z.optional(z.string().check(z.startsWith("/"))),
});
export type SpawnerOptions = z.infer<typeof SpawnerOptions>;
export type SpawnerOptionsInput = z.input<typeof SpawnerOptions>;

const RequestId = z.int().check(z.nonnegative());
const SessionId = z.string().check(z.minLength(1), z.maxLength(200));

// ---- control channel: host → spawner
export const ControlRequest = z.discriminatedUnion("op", [
  /** Binds a one-time token to a session; the worker that presents it gets a connection for that session only. */
  z.object({
    op: z.literal("grant"),
    sessionId: SessionId,
    token: z.string().check(z.minLength(32), z.maxLength(200)),
    cwd: z.string().check(z.minLength(1)),
    /** Where the session's full command output goes; null: the spawner's own per-session directory. */
    outputDir: z.nullable(z.string().check(z.minLength(1))),
  }),
  /** Ends every command of the session (background tasks included) and forgets it. */
  z.object({ op: z.literal("end_session"), id: RequestId, sessionId: SessionId }),
  /** Ends every command of every session, answers, and exits. */
  z.object({ op: z.literal("shutdown"), id: RequestId }),
]);
export type ControlRequest = z.infer<typeof ControlRequest>;

export const SandboxStatus = z.object({ ok: z.boolean(), detail: z.string() });
export type SandboxStatus = z.infer<typeof SandboxStatus>;

// ---- control channel: spawner → host
export const ControlMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), socketPath: z.string(), outputRoot: z.string(), sandbox: SandboxStatus }),
  z.object({ type: z.literal("ended"), id: RequestId, killed: z.int().check(z.nonnegative()) }),
]);
export type ControlMessage = z.infer<typeof ControlMessage>;

// ---- session channel: worker → spawner
const CallId = z.string().check(z.minLength(1), z.maxLength(64));
const TaskId = z.string().check(z.minLength(1), z.maxLength(200));

export const WorkerRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("hello"), token: z.string().check(z.minLength(1), z.maxLength(200)) }),
  z.object({
    op: z.literal("run"),
    id: CallId,
    command: z.string().check(z.minLength(1), z.maxLength(1024 * 1024)),
    sandbox: SandboxKind,
    /** Foreground only: the command's group is killed after this long. */
    timeoutMs: z.nullable(z.int().check(z.positive())),
    background: z.boolean(),
    /**
     * Foreground only: how much output is sent as it comes, and how much of the end is kept after that. Output past
     * the first `forwardBytes` is not sent (the output file has it); the last `tailBytes` of it come with `exited`.
     */
    forwardBytes: z._default(z.int().check(z.positive()), 1024 * 1024 + 1),
    tailBytes: z._default(z.int().check(z.nonnegative()), 0),
  }),
  /** Ends a foreground run of this connection (the turn was cancelled). */
  z.object({ op: z.literal("cancel"), id: CallId }),
  /** Output of a background task since the previous read, and its state. */
  z.object({ op: z.literal("read"), id: CallId, taskId: TaskId }),
  z.object({ op: z.literal("kill"), id: CallId, taskId: TaskId }),
  /**
   * Starts a long-lived program with its stdin and stdout streamed over this connection (an MCP stdio server):
   * argv as given, env the given one over the spawner's minimal base, in the session's workspace and sandbox. It is
   * this connection's: it ends with it, or with close_stdio, or with the session.
   */
  z.object({
    op: z.literal("open_stdio"),
    id: CallId,
    command: z.string().check(z.minLength(1), z.maxLength(4096)),
    args: z.array(z.string().check(z.maxLength(64 * 1024))).check(z.maxLength(1024)),
    env: z.record(z.string().check(z.minLength(1), z.maxLength(1024)), z.string().check(z.maxLength(64 * 1024))),
    sandbox: SandboxKind,
  }),
  z.object({ op: z.literal("stdin"), id: CallId, data: z.string().check(z.maxLength(64 * 1024 * 1024)) }),
  z.object({ op: z.literal("close_stdio"), id: CallId }),
]);
export type WorkerRequest = z.infer<typeof WorkerRequest>;
/** What a worker may send: fields with defaults may be left out. */
export type WorkerRequestInput = z.input<typeof WorkerRequest>;

export const EndReason = z.enum(["exited", "killed", "timeout", "sandbox_failed", "spawn_failed"]);
export type EndReason = z.infer<typeof EndReason>;

export const TaskEnd = z.object({
  reason: EndReason,
  exitCode: z.nullable(z.int()),
  signal: z.nullable(z.string()),
  /** For sandbox_failed and spawn_failed: what went wrong. */
  detail: z.nullable(z.string()),
});
export type TaskEnd = z.infer<typeof TaskEnd>;

// ---- session channel: spawner → worker
export const SpawnerReply = z.discriminatedUnion("type", [
  z.object({ type: z.literal("welcome") }),
  z.object({ type: z.literal("denied"), message: z.string() }),
  z.object({ type: z.literal("started"), id: CallId, taskId: z.string(), outputFile: z.string() }),
  /** Foreground output produced since the previous output message. */
  z.object({ type: z.literal("output"), id: CallId, data: z.string() }),
  z.object({
    type: z.literal("exited"),
    id: CallId,
    end: TaskEnd,
    totalBytes: z.int().check(z.nonnegative()),
    outputFile: z.string(),
    /** When output went unsent (past forwardBytes): its last characters, at most tailBytes of them. */
    tail: z._default(z.nullable(z.string()), null),
  }),
  z.object({
    type: z.literal("task_output"),
    id: CallId,
    taskId: z.string(),
    output: z.string(),
    /** Unread output the spawner let go of because nobody read it in time (the file still has it). */
    droppedBytes: z.int().check(z.nonnegative()),
    end: z.nullable(TaskEnd),
    outputFile: z.string(),
  }),
  z.object({ type: z.literal("task_killed"), id: CallId, taskId: z.string(), wasRunning: z.boolean(), end: TaskEnd }),
  z.object({ type: z.literal("error"), id: CallId, message: z.string() }),
  /** An open_stdio program runs; its stderr goes to stderrFile (bounded). */
  z.object({ type: z.literal("stdio_started"), id: CallId, taskId: z.string(), stderrFile: z.string() }),
  z.object({ type: z.literal("stdout"), id: CallId, data: z.string() }),
  /** It ended (its whole group is gone); stderrTail: the last of what it wrote to stderr, to say why. */
  z.object({ type: z.literal("stdio_exited"), id: CallId, end: TaskEnd, stderrTail: z.string() }),
]);
export type SpawnerReply = z.infer<typeof SpawnerReply>;
