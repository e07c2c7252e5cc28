// The contract of the port between the main thread and a session worker: the one module both sides import.
// Main → worker: control commands through comlink (SessionWorkerApi), their arguments parsed by the worker; prompts
// and cancels as plain HostMessages on the events port (the hot path).
// Worker → main: plain one-way posts of WorkerEventBatch on the events port (worker-events.ts, the main thread's).
// Each side's bundle holds the validators of what it receives: a session worker builds only these (zod/mini; a
// worker must cost about a bare thread).
import { Budget, Price } from "./budget.js";
import { ERROR_REASONS, type ErrorReason as ErrorReasonName } from "./errors.js";
import * as z from "zod/mini";
import { McpServerConfig } from "./mcp-servers.js";
import { SystemPromptSetting } from "./system-prompt.js";
import { asTraceParent, type TraceParent } from "./trace.js";

/** A reason of the error catalogue (src/protocol/errors.ts): a worker names the one its refusal or failure is. */
export const ErrorReason = z.enum(ERROR_REASONS as [ErrorReasonName, ...ErrorReasonName[]]);

export const StopReason = z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);
export type StopReason = z.infer<typeof StopReason>;

export const SessionModeId = z.enum(["ask", "auto", "read-only", "full-access"]);
export type SessionModeId = z.infer<typeof SessionModeId>;

export const ModelConfig = z.object({
  provider: z.enum(["scripted", "openai-compatible"]),
  /** The model's name as the provider knows it ("scripted" for the embedded model). */
  model: z.string().check(z.minLength(1)),
  baseUrl: z.optional(z.string()),
  /** Name of the environment variable holding the API key; the key itself never crosses the port. */
  apiKeyEnv: z.optional(z.string()),
  retries: z._default(z.int().check(z.nonnegative()), 3),
  /** Context window (tokens) reported as usage_update's size; unset: known per model name, else a default. */
  contextWindow: z.optional(z.int().check(z.positive())),
  /** A stream that sends no byte for this long is aborted and retried (0 or unset: no limit). */
  idleTimeoutMs: z.optional(z.int().check(z.nonnegative())),
  /** --model-concurrency: requests in flight at once at this model's endpoint; unset: learned from its 429s. */
  concurrency: z.optional(z.int().check(z.positive())),
  /** --model-queue-timeout-ms: how long a request may wait for room at its endpoint (0 or unset: no limit). */
  queueTimeoutMs: z.optional(z.int().check(z.nonnegative())),
  /** The request field naming the tenant for the provider's cache (DeepSeek's user_id, OpenAI's prompt_cache_key). */
  cacheKeyField: z.optional(z.enum(["user_id", "prompt_cache_key"])),
  /** Which earlier reasoning is sent back: DeepSeek wants the current turn's only; other servers get none. */
  reasoningHistory: z.optional(z.enum(["current-turn", "none"])),
  /** --model-price: what its tokens cost (usage_update's cost); unset: no cost is shown. */
  price: z.optional(Price),
});
export type ModelConfig = z.infer<typeof ModelConfig>;

export const SandboxConfig = z.object({
  /** Path to bwrap; null when it is missing (sandboxed modes then fail closed). */
  bwrapPath: z.nullable(z.string()),
  network: z.boolean(),
  allowFullAccess: z.boolean(),
  /**
   * Paths bash's sandbox masks and the file tools must refuse too: the state dir, the spawner's directory, and the
   * other sessions' workspaces live when this worker started (a workspace may hold them).
   */
  hidden: z._default(z.array(z.string()), []),
  /**
   * The host has workspace roots: the cwd it sends is the real path it checked, and a workspace whose real path is
   * no longer that (a directory of it swapped for a symlink since) is refused rather than followed.
   */
  confined: z._default(z.boolean(), false),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** The channel to the spawner process, minted by the main thread for this session only. */
export const SpawnerGrant = z.object({ socketPath: z.string(), token: z.string() });
export type SpawnerGrant = z.infer<typeof SpawnerGrant>;

/**
 * Whose mode and model a restored session runs with. "log": the log's (session/load, session/resume); "host": the
 * ones in WorkerInit, appended to the log when they differ (a session restored after a crash or hibernation, whose
 * settings may have moved on on the main thread).
 */
export const SettingsFrom = z.enum(["log", "host"]);
export type SettingsFrom = z.infer<typeof SettingsFrom>;

/**
 * Where a session's log lives, as its worker opens it (src/store/). "dir": the log file exists (the main thread wrote
 * its header); the worker restores it with load-repair, appends to it and fsyncs it at every turn end. "records": a
 * store the host writes (PostgreSQL): the worker is given the header, the last snapshot and the records after it,
 * and posts its appends as `log_records` events; the host commits them and answers a turn's end only after.
 */
export const WorkerLog = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("dir"),
    path: z.string(),
    sidecarPath: z.string(),
    outputDir: z.string(),
    settingsFrom: SettingsFrom,
    /** Where a compaction writes the new log before it renames it over path. */
    compactingPath: z.string(),
    /** The log's restore point: the worker reads it to start its restore there, and writes it between turns. */
    restorePointPath: z.string(),
    /** Compact the log once its entries since the last compaction take this many bytes (--log-compact-bytes). */
    compactBytes: z.int().check(z.positive()),
  }),
  z.object({
    kind: z.literal("records"),
    settingsFrom: SettingsFrom,
    /** The header as stored (a JSON LogHeader). */
    header: z.string(),
    /** The last compaction's snapshot line (log/snapshot.ts), null when the session was never compacted. */
    snapshot: z.nullable(z.string()),
    /** The records after the snapshot (all of them without one), one JSON log entry each, oldest first. */
    records: z.array(z.string()),
    /** The sequence number of records[0] (the snapshot covers every record before it). */
    firstSeq: z.int().check(z.nonnegative()),
    /** Post a snapshot once the records since the last one take this many bytes (--log-compact-bytes). */
    compactBytes: z.int().check(z.positive()),
  }),
]);
export type WorkerLog = z.infer<typeof WorkerLog>;

export const WorkerInit = z.object({
  /** For log lines only: the main thread never trusts an id that comes back from a worker. */
  sessionId: z.string(),
  cwd: z.string(),
  mode: SessionModeId,
  model: ModelConfig,
  maxTurnRequests: z.int().check(z.positive()),
  maxTurnToolCalls: z.int().check(z.positive()),
  /** Compact the conversation before a request estimated above this fraction of the context window. */
  compactAt: z._default(z.number().check(z.gt(0), z.maximum(1)), 0.8),
  /** Send message and thought text as it arrives (--stream-chunks), not only when the message is committed. */
  streamChunks: z._default(z.boolean(), false),
  allowFaultInjection: z.boolean(),
  outputCapBytes: z.int().check(z.positive()),
  maxBackgroundTasks: z.int().check(z.positive()),
  /** Output (characters) posted for the client and not yet handed to its connection, past which the worker waits. */
  outputWindowBytes: z._default(z.int().check(z.positive()), 1024 * 1024),
  /**
   * How much the worker's thread raises its nice value once bound (--worker-nice): above the main thread's, so under
   * a full CPU the main thread, which routes every session, is served before any one session's work.
   */
  nice: z._default(z.int().check(z.gte(0), z.lte(19)), 0),
  sandbox: SandboxConfig,
  spawner: z.nullable(SpawnerGrant),
  /** The client's MCP servers for this session (connected in the background once the worker has opened). */
  mcpServers: z._default(z.array(McpServerConfig), []),
  /** How long the first request to the model waits for servers still connecting. */
  mcpStartupTimeoutMs: z._default(z.int().check(z.positive()), 10_000),
  /** Durable session state (see WorkerLog); null runs the session in memory only. */
  log: z.nullable(WorkerLog),
  /**
   * The system prompt the session runs with from now on: journaled when the log's differs (a client gave a new one
   * with load, resume or fork). Absent: the log's (its header's, or the last one journaled).
   */
  systemPrompt: z.optional(SystemPromptSetting),
  /** Its tree's budget as _host/set_budget set it while no worker held the session: journaled when the log's differs. */
  budget: z.optional(Budget),
});
export type WorkerInit = z.infer<typeof WorkerInit>;

export const ToolKind = z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]);
export type ToolKind = z.infer<typeof ToolKind>;
export const ToolStatus = z.enum(["pending", "in_progress", "completed", "failed"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

/**
 * Main → worker on the events port (the lean path: one postMessage, no reply). A prompt the worker refuses ends at
 * once with a turn_error carrying the refusal's reason; otherwise its turn runs and ends with turn_end or turn_error.
 * A permission's outcome takes the same path as a cancel, so the worker sees them in the order they were sent.
 */
export type HostMessage =
  /**
   * trace: the turn's invoke_agent span, when the turn is traced (sampled): the worker's spans hang under it.
   * traceContent: its spans may hold model output and tool arguments and results (--trace-content).
   * lastMessage: the turn_end carries the text of the turn's last message (a child's turn: its parent's spawn_agent
   * returns it); other turns' answers leave it in the worker.
   * cancelled: the host cancelled the turn before the worker had it (while the worker started): the turn starts
   * cancelled, so it is in the log (its prompt and its cancelled end) like any other; reason as a cancel's.
   */
  | {
      type: "prompt";
      turnId: string;
      text: string;
      trace?: TraceParent;
      traceContent?: boolean;
      lastMessage?: boolean;
      cancelled?: { reason?: string };
    }
  | { type: "cancel"; turnId: string; reason?: string }
  | { type: "permission"; requestId: string; outcome: PermissionOutcome }
  /** The answer to a child_request: the child's final message, or why there is none. */
  | { type: "child_result"; requestId: string; outcome: ChildOutcome }
  /** Liveness: the worker answers with a pong event of the same id (the host's watchdog). */
  | { type: "ping"; id: number };

/** The worker's check of what arrives on its events port: no zod on the hot path, only the shape it relies on. */
export function asHostMessage(data: unknown): HostMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const message = data as Record<string, unknown>;
  if (message.type === "ping") return typeof message.id === "number" ? { type: "ping", id: message.id } : null;
  if (message.type === "permission") {
    const outcome = PermissionOutcome.safeParse(message.outcome);
    if (typeof message.requestId !== "string" || !outcome.success) return null;
    return { type: "permission", requestId: message.requestId, outcome: outcome.data };
  }
  if (message.type === "child_result") {
    const outcome = ChildOutcome.safeParse(message.outcome);
    if (typeof message.requestId !== "string" || !outcome.success) return null;
    return { type: "child_result", requestId: message.requestId, outcome: outcome.data };
  }
  if (typeof message.turnId !== "string" || message.turnId.length === 0) return null;
  if (message.type === "cancel") {
    return typeof message.reason === "string"
      ? { type: "cancel", turnId: message.turnId, reason: message.reason }
      : { type: "cancel", turnId: message.turnId };
  }
  if (message.type === "prompt" && typeof message.text === "string" && message.text.length > 0) {
    const trace = message.trace === undefined ? null : asTraceParent(message.trace);
    const prompt: HostMessage = { type: "prompt", turnId: message.turnId, text: message.text };
    if (message.lastMessage === true) prompt.lastMessage = true;
    const cancelled = asCancelled(message.cancelled);
    if (cancelled) prompt.cancelled = cancelled;
    if (!trace) return prompt;
    return { ...prompt, trace, traceContent: message.traceContent === true };
  }
  return null;
}

function asCancelled(value: unknown): { reason?: string } | null {
  if (typeof value !== "object" || value === null) return null;
  const reason = (value as Record<string, unknown>).reason;
  return typeof reason === "string" ? { reason } : {};
}

// The three below are built on their first parse: many sessions never ask a permission, spawn a child or replay.
export const PermissionOutcome = z.lazy(() =>
  z.discriminatedUnion("outcome", [
    z.object({ outcome: z.literal("selected"), optionId: z.enum(["allow_once", "allow_always", "reject_once"]) }),
    z.object({ outcome: z.literal("cancelled") }),
  ]),
);
export type PermissionOutcome = z.infer<typeof PermissionOutcome>;

/** What a child session's turn came to, for the parent's spawn_agent call. */
export const ChildOutcome = z.lazy(() =>
  z.discriminatedUnion("ok", [
    z.object({ ok: z.literal(true), sessionId: z.string(), stopReason: StopReason, message: z.string() }),
    z.object({ ok: z.literal(false), sessionId: z.nullable(z.string()), error: z.string() }),
  ]),
);
export type ChildOutcome = z.infer<typeof ChildOutcome>;

/** The records before `seq` that session/load shows, fetched by the host for a "records" session's worker. */
export const ReplayedRecords = z.lazy(() =>
  z.object({ seq: z.int().check(z.nonnegative()), records: z.array(z.string()) }),
);
export type ReplayedRecords = z.infer<typeof ReplayedRecords>;

/** What replay() starts from: the entries numbered from it on (Journal.shown's numbers; 0 or 1: every one). */
export const ReplayFrom = z.int().check(z.nonnegative());

/** What hide() takes: an absolute path (as the main thread keeps a session's cwd). */
export const HiddenPath = z.string().check(z.startsWith("/"));

/**
 * What the piscina task receives: the two transferred ports and the shared output window. The worker then waits on
 * standby, modules loaded, until the main thread binds it to a session with start(init).
 */
export interface SessionTask {
  commands: unknown;
  events: unknown;
  /** The worker's output window (output-window.ts), shared with the main thread. */
  outputWindow: SharedArrayBuffer;
}
export const REPLAY_TURN_ID = "replay";
