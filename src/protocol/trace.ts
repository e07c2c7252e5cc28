// Traces across the thread boundary. The main thread opens a turn's span (invoke_agent) and hands the session worker
// its context with the prompt; the worker records its own spans under it (model calls, tool calls, commands) and
// posts each one finished on its events port, where the main thread checks it (worker-events.ts) and exports it with
// the host's one exporter. Only a sampled turn carries a context: a worker given none records nothing. No zod here:
// a session worker's bundle takes this module, and the schemas live with the side that receives them.

export const TRACE_ID = /^[0-9a-f]{32}$/;
export const SPAN_ID = /^[0-9a-f]{16}$/;

/** The span a worker's spans hang under: a sampled turn's invoke_agent, or a parent's tool call for a child. */
export interface TraceParent {
  traceId: string;
  spanId: string;
}

/** The worker's check of a prompt's trace context (its events port takes no zod on the hot path). */
export function asTraceParent(value: unknown): TraceParent | null {
  if (typeof value !== "object" || value === null) return null;
  const { traceId, spanId } = value as Record<string, unknown>;
  if (typeof traceId !== "string" || typeof spanId !== "string") return null;
  return TRACE_ID.test(traceId) && SPAN_ID.test(spanId) ? { traceId, spanId } : null;
}

export type SpanAttributeValue = string | number | boolean | string[];
export type SpanAttributes = Record<string, SpanAttributeValue>;

export interface SpanEvent {
  name: string;
  /** Epoch milliseconds (performance.timeOrigin + performance.now(): the same clock in every thread). */
  atMs: number;
  attributes?: SpanAttributes;
}

/** A finished span as a worker posts it. */
export interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: "internal" | "client";
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  events: SpanEvent[];
  /** The span failed: status ERROR with this description (error.type is among the attributes). */
  error?: string;
}

/** Epoch milliseconds with a fraction, on a clock every thread of the process shares. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** A traced turn as the host hands it to its session: where the worker's spans hang, and whether they hold content. */
export interface TurnTrace {
  parent: TraceParent;
  /** Spans may hold prompt text, model output and tool arguments and results (--trace-content). */
  content: boolean;
}
