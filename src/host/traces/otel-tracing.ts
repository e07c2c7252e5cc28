// Tracing on the main thread: each turn's invoke_agent span (and each span of the host's own work) is a plain record,
// as a session worker's spans are (src/protocol/trace.ts), its parent read from the client's _meta.traceparent with
// OpenTelemetry's W3C propagator and its sampling decided once, when it opens, by the sampler the OTEL_* variables
// name. Finished records, the main thread's and the workers', go to the export thread (export-thread.ts), where the
// SDK's batch processor and OTLP exporter run: nothing of the SDK's span machinery or serialization runs here.
import {
  defaultTextMapGetter,
  ROOT_CONTEXT,
  SpanKind,
  trace,
  TraceFlags,
  type Context,
  type SpanContext,
} from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { SamplingDecision } from "@opentelemetry/sdk-trace-base";
import {
  nowMs,
  randomSpanId,
  randomTraceId,
  type SpanAttributes,
  type SpanData,
  type TraceParent,
} from "../../protocol/trace.js";
import { TraceExportThread } from "./export-thread.js";
import type { HostTracing, TracedSession, TurnOutcome, TurnSpan } from "./host-tracing.js";
import { samplerFromEnv } from "./sampler-from-env.js";

const SCOPE = "acp-session-host";
const TURN_SPAN = `invoke_agent ${SCOPE}`;
const DEFAULT_QUEUE_SPANS = 2048;

export interface OtelTracingOptions {
  version: string;
  /** Told when exports start failing and when they work again (not once per batch). */
  onExportHealth(failing: boolean, error: string | null): void;
  /** Told when the export thread fails or ends unasked. */
  onExportFault(error: string): void;
  /** Spans carry prompt text, model output and tool arguments and results (--trace-content). */
  content: boolean;
  env: NodeJS.ProcessEnv;
}

export function startOtelTracing(options: OtelTracingOptions): HostTracing {
  const exports = new TraceExportThread({
    scope: { name: SCOPE, version: options.version },
    queueLimit: positive(options.env.OTEL_BSP_MAX_QUEUE_SIZE) ?? DEFAULT_QUEUE_SPANS,
    onHealth: options.onExportHealth,
    onFault: options.onExportFault,
  });
  const sampler = samplerFromEnv(options.env);
  const propagator = new W3CTraceContextPropagator();

  /**
   * A new span's ids under `parent` (the root of a new trace without one), or null when it is not sampled. Absent
   * parts are undefined rather than spread in: a conditional spread costs a turn microseconds (readable-span.ts).
   */
  const sampled = (parent: Context, name: string, kind: SpanKind) => {
    const parentContext = trace.getSpanContext(parent);
    const traceId = parentContext?.traceId ?? randomTraceId();
    const { decision } = sampler.shouldSample(parent, traceId, name, kind, {}, []);
    if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return null;
    return {
      traceId,
      spanId: randomSpanId(),
      parentSpanId: parentContext?.spanId,
      traceState: parentContext?.traceState?.serialize(),
    };
  };

  const openTurn = (session: TracedSession, parent: Context, prompt: string): TurnSpan => {
    const ids = sampled(parent, TURN_SPAN, SpanKind.SERVER);
    if (ids === null) return UNTRACED;
    const attributes: SpanAttributes = {
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.provider.name": SCOPE,
      "gen_ai.agent.name": SCOPE,
      "gen_ai.agent.id": session.id,
      "gen_ai.conversation.id": session.id,
      "gen_ai.request.model": session.model,
      "acp_host.session.mode": session.mode,
    };
    if (session.tenant !== null) attributes["acp_host.tenant"] = session.tenant;
    if (options.content)
      attributes["gen_ai.input.messages"] = JSON.stringify([
        { role: "user", parts: [{ type: "text", content: prompt }] },
      ]);
    const record: SpanData = {
      traceId: ids.traceId,
      spanId: ids.spanId,
      parentSpanId: ids.parentSpanId,
      traceState: ids.traceState,
      name: TURN_SPAN,
      kind: "server",
      startMs: nowMs(),
      endMs: 0,
      attributes,
      events: [],
    };
    return {
      trace: { parent: { traceId: record.traceId, spanId: record.spanId }, content: options.content },
      end(outcome: TurnOutcome) {
        if ("stopReason" in outcome) record.attributes["acp_host.stop_reason"] = outcome.stopReason;
        else {
          const type = errorType(outcome.error);
          record.attributes["error.type"] = type;
          // The reason and the JSON-RPC code, not the message: a model's failure quotes its provider, whose 401
          // quotes part of the key. The host's log has the message.
          const code = (outcome.error as { code?: unknown } | null)?.code;
          record.error = typeof code === "number" ? `${type} (${code})` : type;
        }
        record.endMs = nowMs();
        exports.add(record);
      },
    };
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
      const ids = sampled(ROOT_CONTEXT, name, SpanKind.INTERNAL);
      if (ids === null) return { end() {} };
      const startMs = startedAtMs ?? nowMs();
      return {
        end(error?: string) {
          const record: SpanData = {
            traceId: ids.traceId,
            spanId: ids.spanId,
            name,
            kind: "internal",
            startMs,
            endMs: Math.max(startMs, nowMs()),
            attributes: {
              ...(attributes as SpanAttributes),
              ...(error !== undefined ? { "error.type": "failed" } : {}),
            },
            events: [],
            ...(error !== undefined ? { error } : {}),
          };
          exports.add(record);
        },
      };
    },
    export(spans) {
      for (const span of spans) exports.add(span);
    },
    get dropped() {
      return exports.dropped;
    },
    get exportFailed() {
      return exports.failed;
    },
    shutdown(deadlineMs) {
      return exports.shutdown(deadlineMs);
    },
  };
}

const UNTRACED: TurnSpan = { trace: null, end() {} };

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

function positive(value: string | undefined): number | null {
  const number = Number(value);
  return value !== undefined && Number.isInteger(number) && number > 0 ? number : null;
}
