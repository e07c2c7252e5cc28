// The trace export thread (src/protocol/trace-export.ts): the OpenTelemetry SDK's batch processor and OTLP/HTTP
// (protobuf) exporter for the whole host, configured by the standard OTEL_* variables (endpoint, headers, timeout,
// batch sizes, service name, resource attributes), which it reads from its own copy of the host's environment. Each
// export's outcome goes back to the main thread, which holds the bound on spans not yet exported.
import { parentPort, workerData } from "node:worker_threads";
import { ExportResultCode, type ExportResult } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { asExportCommand, type ExportReport, type ExportThreadData } from "../../src/protocol/trace-export.js";
import { readableSpan } from "./readable-span.js";

const host = parentPort!;
const { scope, queueLimit } = workerData as ExportThreadData;
const report = (message: ExportReport) => host.postMessage(message);

/** Tells the main thread what each export settled. */
class ReportingExporter implements SpanExporter {
  constructor(readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      const failed = result.code !== ExportResultCode.SUCCESS;
      report({
        type: "settled",
        spans: spans.length,
        failed,
        error: failed ? (result.error?.message ?? "export failed") : null,
      });
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

const resource = defaultResource()
  .merge(resourceFromAttributes({ "service.name": scope.name, "service.version": scope.version }))
  .merge(detectResources({ detectors: [envDetector] }));
const processor = new BatchSpanProcessor(new ReportingExporter(new OTLPTraceExporter({ concurrencyLimit: 2 })), {
  maxQueueSize: queueLimit,
});

/**
 * The exporter loads node:http(s) with import() and compiles its serializer on its first export: paid here, when the
 * host starts, instead of beside the first turns, whose first and second exports it makes cheaper (the tracing
 * scenario of npm run bench).
 */
async function warmUp(): Promise<void> {
  await Promise.all([import("node:http"), import("node:https")]);
  const now = Date.now();
  const sample = readableSpan(
    {
      traceId: "0".repeat(31) + "1",
      spanId: "0".repeat(15) + "1",
      name: "warm-up",
      kind: "internal",
      startMs: now,
      endMs: now,
      attributes: { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": 1 },
      events: [{ name: "warm-up", atMs: now }],
    },
    resource,
    scope,
  );
  ProtobufTraceSerializer.serializeRequest([sample]);
}
// One that fails costs only what it would have saved: the first export pays instead.
warmUp().catch(() => {});

host.on("message", (message: unknown) => {
  const command = asExportCommand(message);
  if (command === null) return;
  if (command.type === "spans") {
    for (const record of command.spans) processor.onEnd(readableSpan(record, resource, scope));
    return;
  }
  void processor
    .shutdown()
    .catch(() => {})
    .then(() => report({ type: "shut" }));
});
