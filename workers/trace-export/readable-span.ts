// A span's data (src/protocol/trace.ts) as the OpenTelemetry SDK's exporters read a finished span.
import { SpanKind, SpanStatusCode, TraceFlags, type Attributes, type SpanContext } from "@opentelemetry/api";
import { hrTimeDuration, millisToHrTime, TraceState } from "@opentelemetry/core";
import type { Resource } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import type { ExportScope } from "../../src/protocol/trace-export.js";
import type { SpanData } from "../../src/protocol/trace.js";

const KINDS: Record<SpanData["kind"], SpanKind> = {
  internal: SpanKind.INTERNAL,
  client: SpanKind.CLIENT,
  server: SpanKind.SERVER,
};

/**
 * Built as one literal, absent parts as undefined (the exporter reads them so): a conditional spread in a literal
 * makes V8 build the object slowly, on every span.
 */
export function readableSpan(record: SpanData, resource: Resource, scope: ExportScope): ReadableSpan {
  const startTime = millisToHrTime(record.startMs);
  const endTime = millisToHrTime(record.endMs);
  const spanContext: SpanContext = {
    traceId: record.traceId,
    spanId: record.spanId,
    traceFlags: TraceFlags.SAMPLED,
    traceState: record.traceState !== undefined ? new TraceState(record.traceState) : undefined,
  };
  return {
    name: record.name,
    kind: KINDS[record.kind],
    spanContext: () => spanContext,
    parentSpanContext:
      record.parentSpanId !== undefined
        ? { traceId: record.traceId, spanId: record.parentSpanId, traceFlags: TraceFlags.SAMPLED }
        : undefined,
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
      attributes: event.attributes as Attributes,
    })),
    ended: true,
    resource,
    instrumentationScope: scope,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
