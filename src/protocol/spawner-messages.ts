// The spawner's two channels, validated with zod on every receiving side:
// - control: the host main thread ↔ the spawner process, newline-delimited JSON on the spawner's stdin/stdout;
// - session: a session worker ↔ the spawner, newline-delimited JSON on a unix socket. A connection belongs to the
//   session its one-time token was granted for by the main thread; no message on it names a session.
import { z } from "zod";

/** How a command is confined: bwrap read-only, bwrap workspace-write, or not at all (full-access). */
export const SandboxKind = z.enum(["read-only", "workspace-write", "none"]);
export type SandboxKind = z.infer<typeof SandboxKind>;

/** The spawner's argv[2] (JSON). */
export const SpawnerOptions = z.object({
  /** null: bubblewrap was not found; sandboxed commands fail closed. */
  bwrapPath: z.string().nullable(),
  network: z.boolean(),
  allowFullAccess: z.boolean(),
  maxBackgroundTasks: z.number().int().positive(),
  /** Paths no sandboxed command may see, e.g. the host's state dir with every session's log. */
  hidden: z.array(z.string()).default([]),
  /** How long a worker's hello may wait for its grant (the main thread sends the grant as the worker starts). */
  grantWaitMs: z.number().int().positive().default(2000),
});
export type SpawnerOptions = z.infer<typeof SpawnerOptions>;
export type SpawnerOptionsInput = z.input<typeof SpawnerOptions>;

const RequestId = z.number().int().nonnegative();
const SessionId = z.string().min(1).max(200);

// ---- control channel: host → spawner
export const ControlRequest = z.discriminatedUnion("op", [
  /** Binds a one-time token to a session; the worker that presents it gets a connection for that session only. */
  z.object({
    op: z.literal("grant"),
    sessionId: SessionId,
    token: z.string().min(32).max(200),
    cwd: z.string().min(1),
    /** Where the session's full command output goes; null: the spawner's own per-session directory. */
    outputDir: z.string().min(1).nullable(),
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
  z.object({ type: z.literal("ended"), id: RequestId, killed: z.number().int().nonnegative() }),
]);
export type ControlMessage = z.infer<typeof ControlMessage>;

// ---- session channel: worker → spawner
const CallId = z.string().min(1).max(64);
const TaskId = z.string().min(1).max(200);

export const WorkerRequest = z.discriminatedUnion("op", [
  z.object({ op: z.literal("hello"), token: z.string().min(1).max(200) }),
  z.object({
    op: z.literal("run"),
    id: CallId,
    command: z.string().min(1).max(1024 * 1024),
    sandbox: SandboxKind,
    /** Foreground only: the command's group is killed after this long. */
    timeoutMs: z.number().int().positive().nullable(),
    background: z.boolean(),
  }),
  /** Ends a foreground run of this connection (the turn was cancelled). */
  z.object({ op: z.literal("cancel"), id: CallId }),
  /** Output of a background task since the previous read, and its state. */
  z.object({ op: z.literal("read"), id: CallId, taskId: TaskId }),
  z.object({ op: z.literal("kill"), id: CallId, taskId: TaskId }),
]);
export type WorkerRequest = z.infer<typeof WorkerRequest>;

export const EndReason = z.enum(["exited", "killed", "timeout", "sandbox_failed", "spawn_failed"]);
export type EndReason = z.infer<typeof EndReason>;

export const TaskEnd = z.object({
  reason: EndReason,
  exitCode: z.number().int().nullable(),
  signal: z.string().nullable(),
  /** For sandbox_failed and spawn_failed: what went wrong. */
  detail: z.string().nullable(),
});
export type TaskEnd = z.infer<typeof TaskEnd>;

// ---- session channel: spawner → worker
export const SpawnerReply = z.discriminatedUnion("type", [
  z.object({ type: z.literal("welcome") }),
  z.object({ type: z.literal("denied"), message: z.string() }),
  z.object({ type: z.literal("started"), id: CallId, taskId: z.string(), outputFile: z.string() }),
  /** Foreground output produced since the previous output message. */
  z.object({ type: z.literal("output"), id: CallId, data: z.string() }),
  z.object({ type: z.literal("exited"), id: CallId, end: TaskEnd, totalBytes: z.number().int().nonnegative(), outputFile: z.string() }),
  z.object({
    type: z.literal("task_output"),
    id: CallId,
    taskId: z.string(),
    output: z.string(),
    /** Unread output the spawner let go of because nobody read it in time (the file still has it). */
    droppedBytes: z.number().int().nonnegative(),
    end: TaskEnd.nullable(),
    outputFile: z.string(),
  }),
  z.object({ type: z.literal("task_killed"), id: CallId, taskId: z.string(), wasRunning: z.boolean(), end: TaskEnd }),
  z.object({ type: z.literal("error"), id: CallId, message: z.string() }),
]);
export type SpawnerReply = z.infer<typeof SpawnerReply>;
