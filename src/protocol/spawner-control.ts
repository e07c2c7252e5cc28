// The spawner's two channels, validated with zod on every receiving side, one module per direction of the session
// channel so that each side builds only the validators of what it receives:
// - control (this module): the host main thread ↔ the spawner process, newline-delimited JSON on the spawner's
//   stdin/stdout;
// - session: a session worker ↔ the spawner, newline-delimited JSON on a unix socket (spawner-requests.ts, worker →
//   spawner; spawner-replies.ts, spawner → worker). A connection belongs to the session its one-time token was
//   granted for by the main thread; no message on it names a session.
import * as z from "zod/mini";

/** The spawner's argv[2] (JSON). */
export const SpawnerLogLevel = z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);
export type SpawnerLogLevel = z.infer<typeof SpawnerLogLevel>;

export const SpawnerOptions = z.object({
  /** null: bubblewrap was not found; sandboxed commands fail closed. */
  bwrapPath: z.nullable(z.string()),
  network: z.boolean(),
  allowFullAccess: z.boolean(),
  maxBackgroundTasks: z.int().check(z.positive()),
  /** Paths no sandboxed command may see, e.g. the host's state dir with every session's log (directories or files). */
  hidden: z._default(z.array(z.string()), []),
  /**
   * Roots are configured: a sandbox shows the system's read-only directories, its workspace and a /tmp of its own,
   * nothing else of the host's root (src/spawner/system-view.ts).
   */
  confined: z._default(z.boolean(), false),
  /** How long a worker's hello may wait for its grant (the main thread sends the grant as the worker starts). */
  grantWaitMs: z._default(z.int().check(z.positive()), 2000),
  /** Where the spawner makes its runtime directory (src/spawner/runtime-parent.ts chooses when unset). */
  runtimeParent: z.optional(z.string().check(z.startsWith("/"))),
  /** The host's --log-level: the spawner writes to the host's log stream, at the same level. */
  logLevel: z._default(SpawnerLogLevel, "info"),
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
  /**
   * Makes a session's workspace known before any worker of it connects: every other session's next command runs in a
   * sandbox that masks it. Sent before session/new answers: the control pipe is read before any command the answer
   * leads to can arrive on a worker's socket (it became readable first).
   */
  z.object({
    op: z.literal("workspace"),
    sessionId: SessionId,
    cwd: z.string().check(z.minLength(1)),
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
