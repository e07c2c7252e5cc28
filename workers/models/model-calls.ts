// Each request a model makes for a turn (an attempt: a retry is a request of its own), told to the host as a
// model_call event (counted by tenant and model) and, in a traced turn, recorded as a `chat {model}` span following
// OpenTelemetry's GenAI conventions. Models begin a call and end it; they never see events or spans themselves.
import type { WorkerEvent } from "../../src/protocol/worker-events.js";
import type { Span, SpanParent } from "../trace/span.js";

export interface ModelCallStart {
  model: string;
  /** gen_ai.provider.name: "openai" for an OpenAI-compatible endpoint, "scripted" for the embedded model. */
  provider: string;
  /** The endpoint (server.address, server.port), where there is one. */
  baseUrl?: string;
  /** 0 for the first attempt; a retry says why the attempt before it failed. */
  retry: number;
  retryReason?: string;
}

/** The tokens of an answer the provider reported (a model's ModelUsage). */
interface CallUsage {
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
}

export interface ModelCallEnd {
  /** The answer's finish reason (gen_ai.response.finish_reasons). */
  finish: string;
  usage?: CallUsage | undefined;
  /** The answer's text (recorded only where the host records content). */
  text: string;
  firstChunkAtMs?: number | null;
}

export class ModelCall {
  readonly #post: (event: WorkerEvent) => void;
  readonly #model: string;
  readonly #span: Span | null;
  readonly #content: boolean;

  constructor(post: (event: WorkerEvent) => void, start: ModelCallStart, parent: SpanParent | null, content: boolean) {
    this.#post = post;
    this.#model = start.model;
    this.#content = content;
    this.#span = parent ? chatSpan(parent, start) : null;
  }

  /** The W3C traceparent of this call's span (sent to the model server), if the turn is traced. */
  get traceparent(): string | undefined {
    const context = this.#span?.context;
    return context ? `00-${context.traceId}-${context.spanId}-01` : undefined;
  }

  done(end: ModelCallEnd): void {
    const tokens = end.usage
      ? {
          prompt: end.usage.promptTokens ?? 0,
          completion: end.usage.completionTokens ?? 0,
          cached: end.usage.cachedTokens ?? 0,
        }
      : undefined;
    this.#post({ type: "model_call", model: this.#model, outcome: "ok", ...(tokens ? { tokens } : {}) });
    const span = this.#span;
    if (!span) return;
    span.set("gen_ai.response.finish_reasons", [end.finish]);
    const usage = end.usage;
    if (usage?.promptTokens !== undefined) span.set("gen_ai.usage.input_tokens", usage.promptTokens);
    if (usage?.completionTokens !== undefined) span.set("gen_ai.usage.output_tokens", usage.completionTokens);
    if (usage?.cachedTokens !== undefined) span.set("gen_ai.usage.cache_read.input_tokens", usage.cachedTokens);
    if (end.firstChunkAtMs) span.event("gen_ai.first_chunk", undefined, end.firstChunkAtMs);
    if (this.#content)
      span.set(
        "gen_ai.output.messages",
        JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: end.text }] }]),
      );
    span.end();
  }

  /** errorType: a short class of the failure (an HTTP status, "cancelled", "context_overflow", "connection"). */
  failed(errorType: string, description: string): void {
    this.#post({ type: "model_call", model: this.#model, outcome: "error" });
    this.#span?.fail(errorType, description).end();
  }
}

/** Begins the calls of one turn (or of a compaction within it, under its span). */
export class ModelCalls {
  readonly #post: (event: WorkerEvent) => void;
  readonly #parent: SpanParent | null;
  readonly #content: boolean;

  constructor(post: (event: WorkerEvent) => void, parent: SpanParent | null, content: boolean) {
    this.#post = post;
    this.#parent = parent;
    this.#content = content;
  }

  begin(start: ModelCallStart): ModelCall {
    return new ModelCall(this.#post, start, this.#parent, this.#content);
  }

  /** The same calls, their spans under another parent (a compaction's). */
  under(parent: SpanParent | null): ModelCalls {
    return new ModelCalls(this.#post, parent ?? this.#parent, this.#content);
  }
}

/**
 * A call's `chat {model}` span. Its attributes are one literal, set one by one after: a session's thread runs this
 * code too few times to optimise it, and conditional spreads in the literal cost it more than the rest of the span.
 */
function chatSpan(parent: SpanParent, start: ModelCallStart): Span {
  const span = parent.open(`chat ${start.model}`, "client", {
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": start.provider,
    "gen_ai.request.model": start.model,
  });
  const endpoint = start.baseUrl === undefined ? null : serverOf(start.baseUrl);
  if (endpoint !== null) span.set("server.address", endpoint.address).set("server.port", endpoint.port);
  if (start.retry > 0) span.set("acp_host.model.retry", start.retry);
  if (start.retryReason) span.set("acp_host.model.retry_reason", start.retryReason);
  return span;
}

interface Endpoint {
  address: string;
  port: number;
}

/** A session calls one endpoint: its URL is parsed once, not at every call. */
let lastEndpoint: { baseUrl: string; endpoint: Endpoint | null } | null = null;

function serverOf(baseUrl: string): Endpoint | null {
  if (lastEndpoint?.baseUrl !== baseUrl) lastEndpoint = { baseUrl, endpoint: parseEndpoint(baseUrl) };
  return lastEndpoint.endpoint;
}

function parseEndpoint(baseUrl: string): Endpoint | null {
  if (!baseUrl) return null;
  try {
    const url = new URL(baseUrl);
    return { address: url.hostname, port: url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80 };
  } catch {
    return null;
  }
}
