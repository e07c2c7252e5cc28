// A collector's OTLP/HTTP trace receiver, for tests: POST /v1/traces with protobuf bodies, decoded with
// OpenTelemetry's own proto definitions (test/fixtures/otlp, from open-telemetry/opentelemetry-proto) as a collector
// decodes them. It keeps every span it got, flattened, and can be told to answer slowly or with an error.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import protobuf from "protobufjs";
import { REPO_ROOT } from "./cli-path.js";

const PROTOS = join(REPO_ROOT, "test/fixtures/otlp");

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: Array<{ name: string; timeNs: bigint; attributes: Record<string, unknown> }>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: { code: number; message: string };
  resource: Record<string, unknown>;
  scope: string;
}

export type ReceiverMode = { kind: "ok" } | { kind: "slow"; ms: number } | { kind: "status"; status: number };

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Every request's headers and raw body, in order. */
  readonly requests: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];
  mode: ReceiverMode = { kind: "ok" };
  readonly #server: Server;
  readonly #request: protobuf.Type;
  readonly #waiters: Array<() => void> = [];
  #url = "";

  private constructor(request: protobuf.Type) {
    this.#request = request;
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        this.requests.push({ headers: req.headers, body });
        const answer = () => {
          if (this.mode.kind === "status") {
            res.writeHead(this.mode.status, { "content-type": "application/x-protobuf" }).end();
            return;
          }
          if (req.url === "/v1/traces" && req.method === "POST") this.#take(body);
          res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
        };
        if (this.mode.kind === "slow") setTimeout(answer, this.mode.ms);
        else answer();
      });
    });
  }

  static async start(): Promise<OtlpReceiver> {
    const root = new protobuf.Root();
    root.resolvePath = (_origin, target) => join(PROTOS, target);
    await root.load("opentelemetry/proto/collector/trace/v1/trace_service.proto", { keepCase: false });
    const receiver = new OtlpReceiver(
      root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
    );
    receiver.#server.listen(0, "127.0.0.1");
    await once(receiver.#server, "listening");
    receiver.#url = `http://127.0.0.1:${(receiver.#server.address() as AddressInfo).port}`;
    return receiver;
  }

  /** OTEL_EXPORTER_OTLP_ENDPOINT for a host: the exporter adds /v1/traces. */
  get endpoint(): string {
    return this.#url;
  }

  /** Resolves once a span matching `test` has arrived. */
  async waitFor(test: (span: ReceivedSpan) => boolean): Promise<ReceivedSpan> {
    for (;;) {
      const found = this.spans.find(test);
      if (found) return found;
      await new Promise<void>((resolve) => this.#waiters.push(resolve));
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #take(body: Buffer): void {
    const message = this.#request.toObject(this.#request.decode(body), { longs: String, bytes: Buffer }) as {
      resourceSpans?: Array<{
        resource?: { attributes?: KeyValue[] };
        scopeSpans?: Array<{ scope?: { name?: string }; spans?: Array<Record<string, unknown>> }>;
      }>;
    };
    for (const resourceSpans of message.resourceSpans ?? []) {
      const resource = attributes(resourceSpans.resource?.attributes);
      for (const scopeSpans of resourceSpans.scopeSpans ?? []) {
        for (const span of scopeSpans.spans ?? []) {
          const status = (span.status ?? {}) as { code?: number; message?: string };
          this.spans.push({
            traceId: hex(span.traceId),
            spanId: hex(span.spanId),
            parentSpanId: hex(span.parentSpanId),
            name: span.name as string,
            kind: (span.kind as number | undefined) ?? 0,
            startNs: BigInt((span.startTimeUnixNano as string | undefined) ?? 0),
            endNs: BigInt((span.endTimeUnixNano as string | undefined) ?? 0),
            attributes: attributes(span.attributes as KeyValue[] | undefined),
            events: ((span.events as Array<Record<string, unknown>> | undefined) ?? []).map((event) => ({
              name: event.name as string,
              timeNs: BigInt((event.timeUnixNano as string | undefined) ?? 0),
              attributes: attributes(event.attributes as KeyValue[] | undefined),
            })),
            status: { code: status.code ?? 0, message: status.message ?? "" },
            resource,
            scope: scopeSpans.scope?.name ?? "",
          });
        }
      }
    }
    for (const wake of this.#waiters.splice(0)) wake();
  }
}

function hex(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString("hex") : "";
}

function attributes(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((pair) => [pair.key, valueOf(pair.value)]));
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
