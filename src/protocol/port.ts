// The contract of the port between the main thread and a session worker: the one module both sides import.
// Main → worker: commands through comlink (SessionWorkerApi); every argument is parsed with zod by the worker.
// Worker → main: plain one-way posts of WorkerEventBatch on a second port; parsed with zod by the main thread,
// which attributes them to a session by the port they arrived on (no event carries a session id).
import { z } from "zod";

export const StopReason = z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);
export type StopReason = z.infer<typeof StopReason>;

export const SessionModeId = z.enum(["ask", "auto", "read-only", "full-access"]);
export type SessionModeId = z.infer<typeof SessionModeId>;

export const ModelConfig = z.object({
  provider: z.enum(["scripted", "openai-compatible"]),
  /** The model's name as the provider knows it ("scripted" for the embedded model). */
  model: z.string().min(1),
  baseUrl: z.string().optional(),
  /** Name of the environment variable holding the API key; the key itself never crosses the port. */
  apiKeyEnv: z.string().optional(),
  retries: z.number().int().min(0).default(3),
  /** Context window (tokens) reported as usage_update's size; unset: known per model name, else a default. */
  contextWindow: z.number().int().positive().optional(),
  /** Which earlier reasoning is sent back: DeepSeek wants the current turn's only; other servers get none. */
  reasoningHistory: z.enum(["current-turn", "none"]).optional(),
});
export type ModelConfig = z.infer<typeof ModelConfig>;

export const SandboxConfig = z.object({
  /** Path to bwrap; null when it is missing (sandboxed modes then fail closed). */
  bwrapPath: z.string().nullable(),
  network: z.boolean(),
  allowFullAccess: z.boolean(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** The channel to the spawner process, minted by the main thread for this session only. */
export const SpawnerGrant = z.object({ socketPath: z.string(), token: z.string() });
export type SpawnerGrant = z.infer<typeof SpawnerGrant>;

export const WorkerInit = z.object({
  /** For log lines only: the main thread never trusts an id that comes back from a worker. */
  sessionId: z.string(),
  cwd: z.string(),
  mode: SessionModeId,
  model: ModelConfig,
  maxTurnRequests: z.number().int().positive(),
  /** Compact the conversation before a request estimated above this fraction of the context window. */
  compactAt: z.number().gt(0).max(1).default(0.8),
  /** Send message and thought text as it arrives (--stream-chunks), not only when the message is committed. */
  streamChunks: z.boolean().default(false),
  allowFaultInjection: z.boolean(),
  outputCapBytes: z.number().int().positive(),
  maxBackgroundTasks: z.number().int().positive(),
  sandbox: SandboxConfig,
  spawner: SpawnerGrant.nullable(),
  /**
   * Durable session state (see session-log.ts); null runs the session in memory only. The log exists (the main
   * thread wrote its header); the worker restores it with load-repair and appends to it. restore "log": the log's
   * mode and model win (session/load, session/resume); "host": mode and model above win and are appended to the
   * log when they differ (a session restored after a crash or hibernation, whose settings may have moved on).
   */
  log: z
    .object({ path: z.string(), sidecarPath: z.string(), outputDir: z.string(), restore: z.enum(["log", "host"]) })
    .nullable(),
});
export type WorkerInit = z.infer<typeof WorkerInit>;

export const ToolKind = z.enum(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"]);
export type ToolKind = z.infer<typeof ToolKind>;
export const ToolStatus = z.enum(["pending", "in_progress", "completed", "failed"]);
export type ToolStatus = z.infer<typeof ToolStatus>;

const TurnId = z.string().min(1);
const TokenCounts = z.object({ prompt: z.number().int().nonnegative(), completion: z.number().int().nonnegative(), cached: z.number().int().nonnegative() });

export const WorkerEvent = z.discriminatedUnion("type", [
  /** A committed assistant message: one agent_message_chunk per non-empty block. */
  z.object({ type: z.literal("assistant_message"), turnId: TurnId, blocks: z.array(z.string()) }),
  /** Only during replay (session/load). */
  z.object({ type: z.literal("user_message"), turnId: TurnId, text: z.string() }),
  z.object({
    type: z.literal("tool_call"),
    turnId: TurnId,
    toolCallId: z.string().min(1),
    title: z.string(),
    kind: ToolKind,
    status: ToolStatus,
    rawInput: z.unknown(),
  }),
  z.object({
    type: z.literal("tool_call_update"),
    turnId: TurnId,
    toolCallId: z.string().min(1),
    status: ToolStatus.optional(),
    /** Only the output produced since the previous update, never the accumulated whole. */
    outputDelta: z.string().optional(),
    /** The final result as the model sees it (capped). */
    result: z.string().optional(),
  }),
  /** Reasoning (agent_thought_chunk): a committed message's, a streamed delta (--stream-chunks), or a compaction notice. */
  z.object({ type: z.literal("thought"), turnId: TurnId, text: z.string() }),
  z.object({
    type: z.literal("usage"),
    turnId: TurnId,
    used: z.number().int().nonnegative(),
    size: z.number().int().nonnegative(),
    /** This response's token counts, where the provider reported them; `cached`: prompt tokens served from its cache. */
    tokens: TokenCounts.optional(),
    /** The session's sums of the same since it was created (the cost inputs). */
    session: TokenCounts.optional(),
  }),
  z.object({
    type: z.literal("permission_request"),
    turnId: TurnId,
    requestId: z.string().min(1),
    toolCallId: z.string().min(1),
    title: z.string(),
    kind: ToolKind,
    rawInput: z.unknown(),
  }),
  z.object({
    type: z.literal("turn_end"),
    turnId: TurnId,
    stopReason: StopReason,
  }),
  /** The turn failed: the prompt gets a JSON-RPC error with this code and message. */
  z.object({ type: z.literal("turn_error"), turnId: TurnId, code: z.number().int(), message: z.string() }),
  z.object({
    type: z.literal("log"),
    level: z.enum(["debug", "info", "warn", "error"]),
    msg: z.string(),
    data: z.record(z.string(), z.unknown()).optional(),
  }),
]);
export type WorkerEvent = z.infer<typeof WorkerEvent>;
export const WorkerEventBatch = z.array(WorkerEvent).min(1);
export type WorkerEventBatch = z.infer<typeof WorkerEventBatch>;

export const PromptCommand = z.object({ turnId: TurnId, text: z.string().min(1) });
export type PromptCommand = z.infer<typeof PromptCommand>;

/** The answer to a prompt command: either the turn started (it ends with turn_end/turn_error) or it was refused. */
export const PromptAck = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true) }),
  z.object({ ok: z.literal(false), code: z.number().int(), message: z.string() }),
]);
export type PromptAck = z.infer<typeof PromptAck>;

export const PermissionOutcome = z.discriminatedUnion("outcome", [
  z.object({ outcome: z.literal("selected"), optionId: z.enum(["allow_once", "allow_always", "reject_once"]) }),
  z.object({ outcome: z.literal("cancelled") }),
]);
export type PermissionOutcome = z.infer<typeof PermissionOutcome>;

export const ReplayAck = z.object({ turns: z.number().int().nonnegative() });
export type ReplayAck = z.infer<typeof ReplayAck>;

/** The answer to open: the session is restored (with the mode and model it runs with now), or its log is unusable. */
export const OpenAck = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    turns: z.number().int().nonnegative(),
    mode: SessionModeId,
    model: ModelConfig,
    /** The worker's thread, so the main thread can tell when it is really gone. */
    threadId: z.number().int().nonnegative(),
  }),
  z.object({ ok: z.literal(false), code: z.number().int(), message: z.string() }),
]);
export type OpenAck = z.infer<typeof OpenAck>;

/** Commands the main thread calls on a session worker (comlink). */
export interface SessionWorkerApi {
  /** Binds a standby worker to its one session; every other command waits for it. */
  start(init: WorkerInit): Promise<void>;
  /** Answers once start has restored the session (log read and repaired, loop built), or why it could not. */
  open(): Promise<OpenAck>;
  prompt(command: PromptCommand): Promise<PromptAck>;
  /** Cooperative cancel of the named turn: the loop stops at its next step and the model request is aborted. */
  cancel(turnId: string): Promise<void>;
  resolvePermission(requestId: string, outcome: PermissionOutcome): Promise<void>;
  setMode(mode: SessionModeId): Promise<void>;
  setModel(model: ModelConfig): Promise<void>;
  /**
   * Posts the session's history as events (turnId "replay"), then a turn_end with turnId "replay" that marks the
   * end (events and answers travel on different ports, so the main thread waits for the marker, not the answer).
   */
  replay(): Promise<ReplayAck>;
  /** Ends background tasks and flushes state; the main thread terminates the thread afterwards. */
  dispose(): Promise<void>;
}

/**
 * What the piscina task receives: the two transferred ports. The worker then waits on standby, modules loaded,
 * until the main thread binds it to a session with start(init).
 */
export interface SessionTask {
  commands: unknown;
  events: unknown;
}
export const REPLAY_TURN_ID = "replay";
