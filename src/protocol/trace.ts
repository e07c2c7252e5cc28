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

/** A finished span as a worker posts it (or as the main thread makes its own: a turn's, or a root of its work). */
export interface SpanData {
  traceId: string;
  spanId: string;
  /** Absent for a root span (the host's own work outside turns). */
  parentSpanId?: string;
  /** The W3C tracestate a turn's span carries on from its client's. */
  traceState?: string;
  name: string;
  /** "server": a turn's span, which the main thread opens for a client's request; a worker's are never. */
  kind: "internal" | "client" | "server";
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  events: SpanEvent[];
  /** The span failed: status ERROR with this description (error.type is among the attributes). */
  error?: string;
}

/** A span a session worker records: always under a parent (its turn's, or one of its own), never a server span. */
export type WorkerSpanData = SpanData & { parentSpanId: string; kind: "internal" | "client" };

/** Two hex digits for each byte value. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/**
 * An id drawn as the OpenTelemetry SDK's own RandomIdGenerator draws it, from Math.random: ids must be unique, not
 * secret, and node:crypto would be loaded into a worker that may never need it otherwise (a profile found its first
 * use costing each session thread milliseconds). Never all zeroes, which W3C Trace Context reserves. Written byte by
 * byte from a table: toString(16), padStart and a regex cost several times more, on every turn.
 */
function randomHex(words: number): string {
  let id = "";
  let any = 0;
  for (let i = 0; i < words; i++) {
    const word = Math.floor(Math.random() * 2 ** 32);
    any |= word;
    id +=
      HEX_BYTES[word >>> 24]! +
      HEX_BYTES[(word >>> 16) & 0xff]! +
      HEX_BYTES[(word >>> 8) & 0xff]! +
      HEX_BYTES[word & 0xff]!;
  }
  return any === 0 ? randomHex(words) : id;
}

export function randomSpanId(): string {
  return randomHex(2);
}

export function randomTraceId(): string {
  return randomHex(4);
}

/** This thread's start in epoch milliseconds: a getter that calls into Node each time it is read. */
const TIME_ORIGIN = performance.timeOrigin;

/** Epoch milliseconds with a fraction, on a clock every thread of the process shares. */
export function nowMs(): number {
  return TIME_ORIGIN + performance.now();
}

/** A traced turn as the host hands it to its session: where the worker's spans hang, and whether they hold content. */
export interface TurnTrace {
  parent: TraceParent;
  /** Spans may hold prompt text, model output and tool arguments and results (--trace-content). */
  content: boolean;
}
