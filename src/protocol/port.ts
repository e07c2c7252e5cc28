// The contract of the port between the main thread and a session worker: the one module both sides import.
// Main → worker: control commands through comlink (SessionWorkerApi), their arguments parsed by the worker; prompts
// and cancels as plain HostMessages on the events port (the hot path).
// Worker → main: plain one-way posts of WorkerEventBatch on the events port; parsed by the main thread, which
// attributes them to a session by the port they arrived on (no event carries a session id).
// zod/mini: the worker loads only the validators it uses (a session worker must cost about a bare thread).
import { ERROR_REASONS, type ErrorReason as ErrorReasonName } from "./errors.js";
import type { MessagePort } from "node:worker_threads";
import * as z from "zod/mini";
import { McpServerConfig, McpServerStatus } from "./mcp-servers.js";
import { PlanEntry } from "./plan.js";
import { SystemPromptSetting } from "./system-prompt.js";

/** A reason of the error catalogue (src/protocol/errors.ts): a worker names the one its refusal or failure is. */
const ErrorReason = z.enum(ERROR_REASONS as [ErrorReasonName, ...ErrorReasonName[]]);

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
  /** Which earlier reasoning is sent back: DeepSeek wants the current turn's only; other servers get none. */
  reasoningHistory: z.optional(z.enum(["current-turn", "none"])),
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
});
export type WorkerInit = z.infer<typeof WorkerInit>;

export const ToolKind = z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]);
export type ToolKind = z.infer<typeof ToolKind>;
export const ToolStatus = z.enum(["pending", "in_progress", "completed", "failed"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

const TurnId = z.string().check(z.minLength(1));
const ToolCallId = z.string().check(z.minLength(1));
const Count = z.int().check(z.nonnegative());
const TokenCounts = z.object({ prompt: Count, completion: Count, cached: Count });

export const WorkerEvent = z.discriminatedUnion("type", [
  /** A committed assistant message: one agent_message_chunk per non-empty block. */
  z.object({ type: z.literal("assistant_message"), turnId: TurnId, blocks: z.array(z.string()) }),
  /** Only during replay (session/load). */
  z.object({ type: z.literal("user_message"), turnId: TurnId, text: z.string() }),
  z.object({
    type: z.literal("tool_call"),
    turnId: TurnId,
    toolCallId: ToolCallId,
    title: z.string(),
    kind: ToolKind,
    status: ToolStatus,
    rawInput: z.unknown(),
  }),
  z.object({
    type: z.literal("tool_call_update"),
    turnId: TurnId,
    toolCallId: ToolCallId,
    status: z.optional(ToolStatus),
    /** Only the output produced since the previous update, never the accumulated whole. */
    outputDelta: z.optional(z.string()),
    /** The final result as the model sees it (capped). */
    result: z.optional(z.string()),
  }),
  /** Reasoning (agent_thought_chunk): a committed message's, or a streamed delta (--stream-chunks). */
  z.object({ type: z.literal("thought"), turnId: TurnId, text: z.string() }),
  /** The session got its title from its first prompt (a session with no title yet; session_info_update). */
  z.object({ type: z.literal("title"), turnId: TurnId, title: z.string() }),
  /** The agent's whole plan, as update_plan set it (ACP `plan`). */
  z.object({ type: z.literal("plan"), turnId: TurnId, entries: z.array(PlanEntry) }),
  /**
   * A context compaction's progress: in_progress when it starts; completed with the summary and the notice a client
   * without compaction updates is shown (a thought); failed with why; cancelled with its turn.
   */
  z.object({
    type: z.literal("compaction"),
    turnId: TurnId,
    compactionId: z.string().check(z.minLength(1)),
    status: z.enum(["in_progress", "completed", "failed", "cancelled"]),
    summary: z.optional(z.string()),
    notice: z.optional(z.string()),
    error: z.optional(z.string()),
  }),
  /**
   * The spawn_agent tool asks for a child session: a new one (prompt, maybe a narrower mode and a cwd inside the
   * session's) or one of the session's own children again (session). The host answers with a child_result message.
   */
  z.object({
    type: z.literal("child_request"),
    turnId: TurnId,
    requestId: z.string().check(z.minLength(1)),
    toolCallId: ToolCallId,
    prompt: z.string().check(z.minLength(1)),
    mode: z.optional(z.string()),
    session: z.optional(z.string()),
    cwd: z.optional(z.string()),
    title: z.optional(z.string()),
    description: z.optional(z.string()),
  }),
  z.object({
    type: z.literal("usage"),
    turnId: TurnId,
    used: Count,
    size: Count,
    /** This response's token counts, where the provider reported them; `cached`: prompt tokens served from its cache. */
    tokens: z.optional(TokenCounts),
    /** The session's sums of the same since it was created (the cost inputs). */
    session: z.optional(TokenCounts),
  }),
  z.object({
    type: z.literal("permission_request"),
    turnId: TurnId,
    requestId: z.string().check(z.minLength(1)),
    toolCallId: ToolCallId,
    title: z.string(),
    kind: ToolKind,
    rawInput: z.unknown(),
  }),
  z.object({
    type: z.literal("turn_end"),
    turnId: TurnId,
    stopReason: StopReason,
    /** The text of the turn's last committed assistant message (what a parent's spawn_agent returns). */
    lastMessage: z.optional(z.string()),
  }),
  /**
   * The turn failed: the prompt gets a JSON-RPC error with this code and message. workerEnds: the worker's memory
   * may hold what the log does not (the log could not be written), so it ends; the next prompt needs a fresh one.
   */
  z.object({
    type: z.literal("turn_error"),
    turnId: TurnId,
    reason: ErrorReason,
    message: z.string(),
    workerEnds: z.optional(z.literal(true)),
  }),
  /** One of the session's MCP servers changed state (sent to the client as `_host/mcp_status`). */
  z.object({
    type: z.literal("mcp_status"),
    server: z.string(),
    status: McpServerStatus,
    tools: z.array(z.string()),
    message: z.nullable(z.string()),
  }),
  /**
   * Records of a session on a store the host writes ("records" log): one JSON log entry each, from sequence number
   * `from` on, in order; replayable: whether session/load shows each. Posted before the events that show them.
   */
  z
    .object({
      type: z.literal("log_records"),
      from: Count,
      lines: z.array(z.string()).check(z.minLength(1)),
      replayable: z.array(z.boolean()),
    })
    .check(z.refine((records) => records.lines.length === records.replayable.length, "one replayable flag per line")),
  /** What session/list shows of a "records" session, posted at each turn's end (before its turn_end). */
  z.object({ type: z.literal("log_summary"), turns: Count, title: z.nullable(z.string()) }),
  /** A "records" session's base as of record `seq` (a compaction): a restore reads it and the records from seq on. */
  z.object({ type: z.literal("log_snapshot"), seq: Count, snapshot: z.string() }),
  /** The answer to a ping: the worker's event loop is turning. */
  z.object({ type: z.literal("pong"), id: z.int() }),
  z.object({
    type: z.literal("log"),
    level: z.enum(["debug", "info", "warn", "error"]),
    msg: z.string(),
    data: z.optional(z.record(z.string(), z.unknown())),
  }),
]);
export type WorkerEvent = z.infer<typeof WorkerEvent>;
export const WorkerEventBatch = z.array(WorkerEvent).check(z.minLength(1));
export type WorkerEventBatch = z.infer<typeof WorkerEventBatch>;

/**
 * Main → worker on the events port (the lean path: one postMessage, no reply). A prompt the worker refuses ends at
 * once with a turn_error carrying the refusal's reason; otherwise its turn runs and ends with turn_end or turn_error.
 * A permission's outcome takes the same path as a cancel, so the worker sees them in the order they were sent.
 */
export type HostMessage =
  | { type: "prompt"; turnId: string; text: string }
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
    return { type: "prompt", turnId: message.turnId, text: message.text };
  }
  return null;
}

export const PermissionOutcome = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("selected"), optionId: z.enum(["allow_once", "allow_always", "reject_once"]) }),
  z.object({ outcome: z.literal("cancelled") }),
]);
export type PermissionOutcome = z.infer<typeof PermissionOutcome>;

/** What a child session's turn came to, for the parent's spawn_agent call. */
export const ChildOutcome = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), sessionId: z.string(), stopReason: StopReason, message: z.string() }),
  z.object({ ok: z.literal(false), sessionId: z.nullable(z.string()), error: z.string() }),
]);
export type ChildOutcome = z.infer<typeof ChildOutcome>;

/**
 * turns: the turns replayed. recordsBefore: a "records" session's worker holds only the records from this sequence
 * number on; nothing was replayed: call again with the ones before it (ReplayedRecords).
 */
export const ReplayAck = z.object({
  turns: z.int().check(z.nonnegative()),
  recordsBefore: z.optional(z.int().check(z.nonnegative())),
});
export type ReplayAck = z.infer<typeof ReplayAck>;

/** The records before `seq` that session/load shows, fetched by the host for a "records" session's worker. */
export const ReplayedRecords = z.object({ seq: z.int().check(z.nonnegative()), records: z.array(z.string()) });
export type ReplayedRecords = z.infer<typeof ReplayedRecords>;

/** The answer to open: the session is restored (with the mode and model it runs with now), or its log is unusable. */
export const OpenAck = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    turns: z.int().check(z.nonnegative()),
    mode: SessionModeId,
    model: ModelConfig,
    /** The worker's thread, so the main thread can tell when it is really gone. */
    threadId: z.int().check(z.nonnegative()),
  }),
  z.object({ ok: z.literal(false), reason: ErrorReason, message: z.string() }),
]);
export type OpenAck = z.infer<typeof OpenAck>;

/** What hide() takes: an absolute path (as the main thread keeps a session's cwd). */
export const HiddenPath = z.string().check(z.startsWith("/"));

export const WorkerStats = z.object({
  activeMs: z.number().check(z.nonnegative()),
  heapUsedBytes: z.number().check(z.nonnegative()),
});
export type WorkerStats = z.infer<typeof WorkerStats>;

/** Commands the main thread calls on a session worker (comlink). */
export interface SessionWorkerApi {
  /**
   * Binds a standby worker to its one session; every other command waits for it. gateway: the session's port to the
   * host's model gateway (src/protocol/model-gateway.ts), where the host has one.
   */
  start(init: WorkerInit, gateway?: MessagePort): Promise<void>;
  /** The host restarted its model gateway: requests from now on go through this port. */
  reconnectGateway(gateway: MessagePort): Promise<void>;
  /** Answers once start has restored the session (log read and repaired, loop built), or why it could not. */
  open(): Promise<OpenAck>;
  setMode(mode: SessionModeId): Promise<void>;
  /** The worker's own figures for `_host/status`. */
  stats(): Promise<WorkerStats>;
  /** The host restarted its spawner: commands from now on go through this grant. */
  regrant(grant: SpawnerGrant): Promise<void>;
  /**
   * Another session's workspace now lies inside this one: the file tools refuse it from now on, as bash's sandbox
   * masks it (the worker's init listed only the workspaces there were when it started).
   */
  hide(path: string): Promise<void>;
  setModel(model: ModelConfig): Promise<void>;
  /** A client gave the session a new system prompt (load or resume of a live session): journaled, used from now on. */
  setSystemPrompt(systemPrompt: SystemPromptSetting): Promise<void>;
  /**
   * Posts the session's history as events (turnId "replay"), then a turn_end with turnId "replay" that marks the
   * end (events and answers travel on different ports, so the main thread waits for the marker, not the answer).
   * A "records" session compacted since its worker opened asks first for the older records it no longer holds.
   */
  replay(older?: ReplayedRecords): Promise<ReplayAck>;
  /** Ends background tasks and flushes state; the main thread terminates the thread afterwards. */
  dispose(): Promise<void>;
}

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
