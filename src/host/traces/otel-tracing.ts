// Tracing with the OpenTelemetry JS SDK: one tracer provider, one batch processor and one OTLP/HTTP (protobuf)
// exporter for the whole host, configured only by the standard OTEL_* variables (endpoint, headers, timeout, sampler,
// service name, resource attributes, batch sizes). The main thread opens each turn's invoke_agent span; a session
// worker's spans (model calls, tool calls, commands, compactions) arrive finished over its port and join the same
// queue as they are. The queue is bounded: a span that finds it full is dropped and counted, so an exporter that is
// slow or down costs a turn nothing but the spans.
import {
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Span,
  type SpanContext,
} from "@opentelemetry/api";
import {
  ExportResultCode,
  millisToHrTime,
  hrTimeDuration,
  W3CTraceContextPropagator,
  type ExportResult,
} from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, envDetector, detectResources, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { Resource } from "@opentelemetry/resources";
import type { SpanRecord, TraceParent } from "../../protocol/trace.js";
import type { HostTracing, TracedSession, TurnOutcome, TurnSpan } from "./host-tracing.js";

const SCOPE = "acp-session-host";
const DEFAULT_QUEUE_SPANS = 2048;

export interface OtelTracingOptions {
  version: string;
  /** Told when exports start failing and when they work again (not once per batch). */
  onExportHealth(failing: boolean, error: string | null): void;
  /** Spans carry prompt text, model output and tool arguments and results (--trace-content). */
  content: boolean;
  env: NodeJS.ProcessEnv;
}

/** Counts what the exporter settled, so the queue's bound covers spans still being sent as well as queued ones. */
class CountingExporter implements SpanExporter {
  pending = 0;
  failed = 0;
  #failing = false;
  constructor(
    readonly inner: SpanExporter,
    readonly onHealth: OtelTracingOptions["onExportHealth"],
  ) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.pending -= spans.length;
      const failing = result.code !== ExportResultCode.SUCCESS;
      if (failing) this.failed += spans.length;
      if (failing !== this.#failing) {
        this.#failing = failing;
        this.onHealth(failing, failing ? (result.error?.message ?? "export failed") : null);
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The batch processor behind a bound: a span past it is dropped here, counted, and never queued. */
class BoundedProcessor implements SpanProcessor {
  dropped = 0;
  constructor(
    readonly inner: SpanProcessor,
    readonly exporter: CountingExporter,
    readonly limit: number,
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.exporter.pending >= this.limit) {
      this.dropped++;
      return;
    }
    this.exporter.pending++;
    this.inner.onEnd(span);
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
}

export function startOtelTracing(options: OtelTracingOptions): HostTracing {
  const limit = positive(options.env.OTEL_BSP_MAX_QUEUE_SIZE) ?? DEFAULT_QUEUE_SPANS;
  const exporter = new CountingExporter(new OTLPTraceExporter({ concurrencyLimit: 2 }), options.onExportHealth);
  // The batch processor's own queue is as long as the bound, so it never drops a span the bound let through.
  const processor = new BoundedProcessor(new BatchSpanProcessor(exporter, { maxQueueSize: limit }), exporter, limit);
  const resource: Resource = defaultResource()
    .merge(resourceFromAttributes({ "service.name": SCOPE, "service.version": options.version }))
    .merge(detectResources({ detectors: [envDetector] }));
  // The SDK reads OTEL_TRACES_SAMPLER and its argument itself (parent-based, always on, by default).
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor] });
  const tracer = provider.getTracer(SCOPE, options.version);
  const propagator = new W3CTraceContextPropagator();
  const scope = { name: SCOPE, version: options.version };

  const openTurn = (session: TracedSession, parent: Context, prompt: string): TurnSpan => {
    const span = tracer.startSpan(
      `invoke_agent ${SCOPE}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "gen_ai.operation.name": "invoke_agent",
          "gen_ai.provider.name": SCOPE,
          "gen_ai.agent.name": SCOPE,
          "gen_ai.agent.id": session.id,
          "gen_ai.conversation.id": session.id,
          "gen_ai.request.model": session.model,
          "acp_host.session.mode": session.mode,
          ...(session.tenant !== null ? { "acp_host.tenant": session.tenant } : {}),
          ...(options.content
            ? {
                "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]),
              }
            : {}),
        },
      },
      parent,
    );
    return turnSpan(span, options.content);
  };

  return {
    turn(session, meta, prompt) {
      return openTurn(session, propagator.extract(ROOT_CONTEXT, metaCarrier(meta), defaultTextMapGetter), prompt);
    },
    childTurn(session, parent, prompt) {
      // A child follows its parent: under an untraced (unsampled) turn it is not traced either.
      return parent ? openTurn(session, contextOf(parent), prompt) : UNTRACED;
    },
    work(name, attributes, startedAtMs) {
      const span = tracer.startSpan(
        name,
        { kind: SpanKind.INTERNAL, attributes, ...(startedAtMs !== undefined ? { startTime: startedAtMs } : {}) },
        ROOT_CONTEXT,
      );
      return {
        end(error?: string) {
          if (error !== undefined) {
            span.setAttribute("error.type", "failed");
            span.setStatus({ code: SpanStatusCode.ERROR, message: error });
          }
          span.end();
        },
      };
    },
    export(spans) {
      for (const record of spans) processor.onEnd(readable(record, resource, scope));
    },
    get dropped() {
      return processor.dropped;
    },
    get exportFailed() {
      return exporter.failed;
    },
    async shutdown(deadlineMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      await Promise.race([provider.shutdown().catch(() => {}), late]);
      clearTimeout(timer);
    },
  };
}

const UNTRACED: TurnSpan = { trace: null, end() {} };

function turnSpan(span: Span, content: boolean): TurnSpan {
  const context = span.spanContext();
  const sampled = span.isRecording();
  return {
    trace: sampled ? { parent: { traceId: context.traceId, spanId: context.spanId }, content } : null,
    end(outcome: TurnOutcome) {
      if ("stopReason" in outcome) span.setAttribute("acp_host.stop_reason", outcome.stopReason);
      else {
        const type = errorType(outcome.error);
        span.setAttribute("error.type", type);
        // The reason and the JSON-RPC code, not the message: a model's failure quotes its provider, whose 401 quotes
        // part of the key. The host's log has the message.
        const code = (outcome.error as { code?: unknown } | null)?.code;
        span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === "number" ? `${type} (${code})` : type });
      }
      span.end();
    },
  };
}

/** The reason a request error carries (src/protocol/errors.ts), else the error's class. */
function errorType(error: unknown): string {
  const data = (error as { data?: unknown } | null)?.data;
  const reason = typeof data === "object" && data !== null ? (data as { reason?: unknown }).reason : undefined;
  if (typeof reason === "string") return reason;
  return error instanceof Error ? error.name : "error";
}

/** ACP's _meta.traceparent, tracestate (W3C Trace Context) as a carrier the propagator reads. */
function metaCarrier(meta: unknown): Record<string, string> {
  if (typeof meta !== "object" || meta === null) return {};
  const carrier: Record<string, string> = {};
  for (const key of ["traceparent", "tracestate"]) {
    const value = (meta as Record<string, unknown>)[key];
    if (typeof value === "string") carrier[key] = value;
  }
  return carrier;
}

function contextOf(parent: TraceParent): Context {
  const spanContext: SpanContext = {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: false,
  };
  return trace.setSpanContext(ROOT_CONTEXT, spanContext);
}

function readable(record: SpanRecord, resource: Resource, scope: { name: string; version: string }): ReadableSpan {
  const startTime = millisToHrTime(record.startMs);
  const endTime = millisToHrTime(record.endMs);
  const spanContext: SpanContext = { traceId: record.traceId, spanId: record.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: record.name,
    kind: record.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
    spanContext: () => spanContext,
    parentSpanContext: { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED },
    startTime,
    endTime,
    duration: hrTimeDuration(startTime, endTime),
    status:
      record.error !== undefined
        ? { code: SpanStatusCode.ERROR, message: record.error }
        : { code: SpanStatusCode.UNSET },
    attributes: record.attributes as Attributes,
    links: [],
    events: record.events.map((event) => ({
      name: event.name,
      time: millisToHrTime(event.atMs),
      ...(event.attributes ? { attributes: event.attributes as Attributes } : {}),
    })),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

function positive(value: string | undefined): number | null {
  const number = Number(value);
  return value !== undefined && Number.isInteger(number) && number > 0 ? number : null;
}
