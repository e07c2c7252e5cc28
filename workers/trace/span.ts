// The worker's spans: a traced turn's parts (model calls, tool calls, commands) recorded as plain objects and posted
// to the main thread once each ends (src/protocol/trace.ts). A turn that is not traced has no root, and every span
// under it is null: `span?.end()` is all an untraced turn pays.
import {
  nowMs,
  type SpanAttributes,
  type SpanEvent,
  type SpanRecord,
  type TraceParent,
} from "../../src/protocol/trace.js";

/** Where a finished span goes (the events port). */
export type SpanSink = (span: SpanRecord) => void;

/** What spans can be opened under: a traced turn's root, or an open span. */
export interface SpanParent {
  readonly context: TraceParent;
  open(name: string, kind: SpanRecord["kind"], attributes: SpanAttributes): Span;
}

/**
 * A span id drawn as the OpenTelemetry SDK's own RandomIdGenerator draws it, from Math.random: ids must be unique,
 * not secret, and node:crypto would be loaded into a worker that may never need it otherwise (a profile found its
 * first use costing each session thread milliseconds).
 */
function spanId(): string {
  const high = Math.floor(Math.random() * 2 ** 32);
  const low = Math.floor(Math.random() * 2 ** 32);
  if (high === 0 && low === 0) return spanId();
  return high.toString(16).padStart(8, "0") + low.toString(16).padStart(8, "0");
}

class Opener implements SpanParent {
  constructor(
    readonly context: TraceParent,
    protected readonly sink: SpanSink,
  ) {}

  open(name: string, kind: SpanRecord["kind"], attributes: SpanAttributes): Span {
    return new Span(this.sink, this.context, name, kind, attributes);
  }
}

/** The root a turn's spans hang under: the main thread's span, named by the prompt (or by a child request). */
export function traceRoot(parent: TraceParent | null, sink: SpanSink): SpanParent | null {
  return parent ? new Opener(parent, sink) : null;
}

export class Span extends Opener {
  readonly #record: SpanRecord;
  #ended = false;

  constructor(sink: SpanSink, parent: TraceParent, name: string, kind: SpanRecord["kind"], attributes: SpanAttributes) {
    const id = spanId();
    super({ traceId: parent.traceId, spanId: id }, sink);
    const start = nowMs();
    this.#record = {
      traceId: parent.traceId,
      spanId: id,
      parentSpanId: parent.spanId,
      name,
      kind,
      startMs: start,
      endMs: start,
      attributes: { ...attributes },
      events: [],
    };
  }

  set(attributes: SpanAttributes): this {
    Object.assign(this.#record.attributes, attributes);
    return this;
  }

  event(name: string, attributes?: SpanAttributes, atMs: number = nowMs()): this {
    const event: SpanEvent = attributes ? { name, atMs, attributes } : { name, atMs };
    this.#record.events.push(event);
    return this;
  }

  /** Marks the span failed: error.type (a short class of the failure) and a description. */
  fail(errorType: string, description: string): this {
    this.#record.attributes["error.type"] = errorType;
    this.#record.error = description;
    return this;
  }

  /** Ends the span (once; later calls do nothing) and hands it on. */
  end(atMs: number = nowMs()): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#record.endMs = Math.max(this.#record.startMs, atMs);
    this.sink(this.#record);
  }
}
