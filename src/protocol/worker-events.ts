// Worker → main: what a session worker posts on its events port (WorkerEventBatch) and answers to the main thread's
// commands, validated by the main thread, which attributes them to a session by the port they arrived on (no event
// carries a session id). The main thread's side of the port: a session worker's bundle does not build these.
import * as z from "zod/mini";
import { BUDGET_REACHED } from "./budget.js";
import { McpServerStatus } from "./mcp-servers.js";
import { PlanEntry } from "./plan.js";
import { ErrorReason, ModelConfig, SessionModeId, StopReason, ToolKind, ToolStatus } from "./port.js";
import { SPAN_ID, TRACE_ID } from "./trace.js";

const TurnId = z.string().check(z.minLength(1));
const ToolCallId = z.string().check(z.minLength(1));
const Count = z.int().check(z.nonnegative());
const TokenCounts = z.object({ prompt: Count, completion: Count, cached: Count });
const TraceId = z.string().check(z.regex(TRACE_ID));
const SpanId = z.string().check(z.regex(SPAN_ID));
const TraceParent = z.object({ traceId: TraceId, spanId: SpanId });
/**
 * On an event that shows a log entry: how many replayable entries the log held once it was appended (that entry's
 * number). The host's event ids are built on it, so they are the same when session/load replays the entry.
 */
const Seq = z.optional(z.int().check(z.positive()));
const SpanAttributes = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]));

/** A finished span (src/protocol/trace.ts): the main thread exports it with the host's exporter. */
const SpanData = z.object({
  traceId: TraceId,
  spanId: SpanId,
  parentSpanId: SpanId,
  name: z.string().check(z.minLength(1)),
  kind: z.enum(["internal", "client"]),
  startMs: z.number(),
  endMs: z.number(),
  attributes: SpanAttributes,
  events: z.array(z.object({ name: z.string(), atMs: z.number(), attributes: z.optional(SpanAttributes) })),
  error: z.optional(z.string()),
});

export const WorkerEvent = z.discriminatedUnion("type", [
  /** A committed assistant message: one agent_message_chunk per non-empty block. */
  z.object({ type: z.literal("assistant_message"), turnId: TurnId, blocks: z.array(z.string()), seq: Seq }),
  /** A prompt: shown to the clients attached with session/attach, and in session/load's replay. */
  z.object({ type: z.literal("user_message"), turnId: TurnId, text: z.string(), seq: Seq }),
  z.object({
    type: z.literal("tool_call"),
    turnId: TurnId,
    seq: Seq,
    toolCallId: ToolCallId,
    /** The tool's name (bash, update_plan, …): what a client labels the call with; its kind is only ACP's category. */
    name: z.optional(z.string()),
    title: z.string(),
    kind: ToolKind,
    status: ToolStatus,
    rawInput: z.unknown(),
  }),
  z.object({
    type: z.literal("tool_call_update"),
    turnId: TurnId,
    seq: Seq,
    toolCallId: ToolCallId,
    status: z.optional(ToolStatus),
    /** Only the output produced since the previous update, never the accumulated whole. */
    outputDelta: z.optional(z.string()),
    /** The final result as the model sees it (capped). */
    result: z.optional(z.string()),
  }),
  /** Reasoning (agent_thought_chunk): a committed message's, or a streamed delta (--stream-chunks). */
  z.object({ type: z.literal("thought"), turnId: TurnId, text: z.string(), seq: Seq }),
  /** The turn's model request waits for room at its provider endpoint (the gateway's scheduler): a notice, not logged. */
  z.object({
    type: z.literal("provider_wait"),
    turnId: TurnId,
    what: z.enum(["window", "pause", "requests", "tokens"]),
    /** Until when (epoch ms); null: until a request in flight ends. */
    untilMs: z.nullable(z.number()),
  }),
  /** The session got its title from its first prompt (a session with no title yet; session_info_update). */
  z.object({ type: z.literal("title"), turnId: TurnId, title: z.string() }),
  /** The agent's whole plan, as update_plan set it (ACP `plan`). */
  z.object({ type: z.literal("plan"), turnId: TurnId, entries: z.array(PlanEntry), seq: Seq }),
  /**
   * A context compaction's progress: in_progress when it starts; completed with the summary and the notice a client
   * without compaction updates is shown (a thought); failed with why; cancelled with its turn.
   */
  z.object({
    type: z.literal("compaction"),
    turnId: TurnId,
    seq: Seq,
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
    /** The spawn_agent call's span, where the turn is traced: the child's turn hangs under it. */
    trace: z.optional(TraceParent),
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
    /** What the session's sums cost (US dollars), at its model's --model-price: filled in by the host, not the worker. */
    costUsd: z.optional(z.number()),
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
    /** The turn ended (max_tokens) because its session tree's budget is reached: no model request was sent. */
    reason: z.optional(z.literal(BUDGET_REACHED)),
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
  /**
   * One request to the model ended (an attempt: a retry is a request of its own): the host counts them by tenant and
   * model, with the tokens the provider reported.
   */
  z.object({
    type: z.literal("model_call"),
    model: z.string(),
    outcome: z.enum(["ok", "error"]),
    tokens: z.optional(TokenCounts),
  }),
  /** Spans the worker finished, for the host's exporter (only under a traced turn). */
  z.object({ type: z.literal("spans"), spans: z.array(SpanData).check(z.minLength(1)) }),
  /** The answer to a ping: the worker's event loop is turning. */
  z.object({ type: z.literal("pong"), id: z.int() }),
  /** A line the worker asks the host to write with its logger (not the session log: that is log_records). */
  z.object({
    type: z.literal("log_line"),
    level: z.enum(["debug", "info", "warn", "error"]),
    msg: z.string(),
    data: z.optional(z.record(z.string(), z.unknown())),
  }),
]);
export type WorkerEvent = z.infer<typeof WorkerEvent>;
export const WorkerEventBatch = z.array(WorkerEvent).check(z.minLength(1));
export type WorkerEventBatch = z.infer<typeof WorkerEventBatch>;

/**
 * turns: the turns replayed. recordsBefore: a "records" session's worker holds only the records from this sequence
 * number on; nothing was replayed: call again with the ones before it (ReplayedRecords).
 */
export const ReplayAck = z.object({
  turns: z.int().check(z.nonnegative()),
  recordsBefore: z.optional(z.int().check(z.nonnegative())),
});
export type ReplayAck = z.infer<typeof ReplayAck>;

/**
 * One page of an attached client's replay: events (each numbered), and how many the whole replay from that entry has.
 * recordsBefore: as in ReplayAck (nothing paged: ask again with the older records).
 */
export const ReplayPage = z.object({
  events: z.array(WorkerEvent),
  total: z.int().check(z.nonnegative()),
  recordsBefore: z.optional(z.int().check(z.nonnegative())),
});
export type ReplayPage = z.infer<typeof ReplayPage>;

/** The answer to open: the session is restored (with the mode and model it runs with now), or its log is unusable. */
export const OpenAck = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true),
    turns: z.int().check(z.nonnegative()),
    mode: SessionModeId,
    model: ModelConfig,
    /** The worker's thread, so the main thread can tell when it is really gone. */
    threadId: z.int().check(z.nonnegative()),
    /** The log's replayable entries (Journal.shown): every update of them has been shown by an earlier worker. */
    shown: z.int().check(z.nonnegative()),
  }),
  z.object({ ok: z.literal(false), reason: ErrorReason, message: z.string() }),
]);
export type OpenAck = z.infer<typeof OpenAck>;

export const WorkerStats = z.object({
  activeMs: z.number().check(z.nonnegative()),
  heapUsedBytes: z.number().check(z.nonnegative()),
});
export type WorkerStats = z.infer<typeof WorkerStats>;
