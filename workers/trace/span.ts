// The worker's spans: a traced turn's parts (model calls, tool calls, commands) recorded as plain objects and posted
// to the main thread once each ends (src/protocol/trace.ts). A turn that is not traced has no root, and every span
// under it is null: `span?.end()` is all an untraced turn pays.
import {
  nowMs,
  randomSpanId,
  type SpanAttributes,
  type SpanAttributeValue,
  type SpanEvent,
  type WorkerSpanData,
  type TraceParent,
} from "../../src/protocol/trace.js";

/** Where a finished span goes (the events port). */
export type SpanSink = (span: WorkerSpanData) => void;

/** What spans can be opened under: a traced turn's root, or an open span. */
export interface SpanParent {
  readonly context: TraceParent;
  /** attributes: the span's own from now on (a literal the caller made for it; set() adds to it). */
  open(name: string, kind: WorkerSpanData["kind"], attributes: SpanAttributes): Span;
}

class Opener implements SpanParent {
  constructor(
    readonly context: TraceParent,
    protected readonly sink: SpanSink,
  ) {}

  open(name: string, kind: WorkerSpanData["kind"], attributes: SpanAttributes): Span {
    return new Span(this.sink, this.context, name, kind, attributes);
  }
}

/** The root a turn's spans hang under: the main thread's span, named by the prompt (or by a child request). */
export function traceRoot(parent: TraceParent | null, sink: SpanSink): SpanParent | null {
  return parent ? new Opener(parent, sink) : null;
}

export class Span extends Opener {
  readonly #data: WorkerSpanData;
  #ended = false;

  constructor(
    sink: SpanSink,
    parent: TraceParent,
    name: string,
    kind: WorkerSpanData["kind"],
    attributes: SpanAttributes,
  ) {
    const id = randomSpanId();
    super({ traceId: parent.traceId, spanId: id }, sink);
    const start = nowMs();
    this.#data = {
      traceId: parent.traceId,
      spanId: id,
      parentSpanId: parent.spanId,
      name,
      kind,
      startMs: start,
      endMs: start,
      attributes,
      events: [],
    };
  }

  set(key: string, value: SpanAttributeValue): this {
    this.#data.attributes[key] = value;
    return this;
  }

  event(name: string, attributes?: SpanAttributes, atMs: number = nowMs()): this {
    const event: SpanEvent = attributes ? { name, atMs, attributes } : { name, atMs };
    this.#data.events.push(event);
    return this;
  }

  /** Marks the span failed: error.type (a short class of the failure) and a description. */
  fail(errorType: string, description: string): this {
    this.#data.attributes["error.type"] = errorType;
    this.#data.error = description;
    return this;
  }

  /** Ends the span (once; later calls do nothing) and hands it on. */
  end(atMs: number = nowMs()): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#data.endMs = Math.max(this.#data.startMs, atMs);
    this.sink(this.#data);
  }
}
