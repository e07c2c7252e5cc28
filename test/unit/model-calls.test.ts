// A model call's `chat {model}` span: the request's attributes (endpoint, retry and its reason) when it begins, the
// answer's (finish reason, tokens, first chunk) when it ends; an endpoint that is not a URL adds none.
import { expect, it } from "vitest";
import type { SpanData } from "../../src/protocol/trace.js";
import type { WorkerEvent } from "../../src/protocol/worker-events.js";
import { ModelCalls } from "../../workers/models/model-calls.js";
import { traceRoot } from "../../workers/trace/span.js";

const parent = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331" };

function calls(spans: SpanData[], events: WorkerEvent[]): ModelCalls {
  return new ModelCalls(
    (event) => events.push(event),
    traceRoot(parent, (span) => spans.push(span)),
    false,
  );
}

it("records the request's and the answer's attributes on the call's span", () => {
  const spans: SpanData[] = [];
  const events: WorkerEvent[] = [];
  const firstChunkAtMs = Date.now();
  const call = calls(spans, events).begin({
    model: "m",
    provider: "openai",
    baseUrl: "https://models.example:8443/v1",
    retry: 1,
    retryReason: "503",
  });
  call.done({
    finish: "stop",
    usage: { promptTokens: 12, completionTokens: 30, cachedTokens: 4 },
    text: "hi",
    firstChunkAtMs,
  });
  expect(spans).toHaveLength(1);
  expect(spans[0]).toMatchObject({ name: "chat m", kind: "client", parentSpanId: parent.spanId });
  expect(spans[0]!.attributes).toEqual({
    "gen_ai.operation.name": "chat",
    "gen_ai.provider.name": "openai",
    "gen_ai.request.model": "m",
    "server.address": "models.example",
    "server.port": 8443,
    "acp_host.model.retry": 1,
    "acp_host.model.retry_reason": "503",
    "gen_ai.response.finish_reasons": ["stop"],
    "gen_ai.usage.input_tokens": 12,
    "gen_ai.usage.output_tokens": 30,
    "gen_ai.usage.cache_read.input_tokens": 4,
  });
  expect(spans[0]!.events).toEqual([{ name: "gen_ai.first_chunk", atMs: firstChunkAtMs }]);
  expect(events).toEqual([
    { type: "model_call", model: "m", outcome: "ok", tokens: { prompt: 12, completion: 30, cached: 4 } },
  ]);
});

it("adds no endpoint for a base URL it cannot read, and the default port of one without a port", () => {
  const spans: SpanData[] = [];
  const model = calls(spans, []);
  model.begin({ model: "m", provider: "openai", baseUrl: "not a url", retry: 0 }).done({ finish: "stop", text: "" });
  model
    .begin({ model: "m", provider: "openai", baseUrl: "https://api.example/v1", retry: 0 })
    .done({ finish: "stop", text: "" });
  expect(spans[0]!.attributes).not.toHaveProperty("server.address");
  expect(spans[0]!.attributes).not.toHaveProperty("acp_host.model.retry");
  expect(spans[1]!.attributes).toMatchObject({ "server.address": "api.example", "server.port": 443 });
});
