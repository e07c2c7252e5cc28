// The sampler OTEL_TRACES_SAMPLER names decides a turn's span as the SDK's own would: parent-based, always on, by
// default; a ratio from OTEL_TRACES_SAMPLER_ARG, 1 where that is missing or out of range.
import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Context } from "@opentelemetry/api";
import { SamplingDecision } from "@opentelemetry/sdk-trace-base";
import { expect, it } from "vitest";
import { samplerFromEnv } from "../../src/host/traces/sampler-from-env.js";

const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

function underClient(sampled: boolean): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: TRACE_ID,
    spanId: "00f067aa0ba902b7",
    traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
  });
}

function sampled(env: NodeJS.ProcessEnv, parent: Context, traceId = TRACE_ID): boolean {
  const { decision } = samplerFromEnv(env).shouldSample(parent, traceId, "invoke_agent", SpanKind.SERVER, {}, []);
  return decision === SamplingDecision.RECORD_AND_SAMPLED;
}

it("by default follows the client's sampled flag and samples a turn without a parent", () => {
  for (const env of [{}, { OTEL_TRACES_SAMPLER: "parentbased_always_on" }, { OTEL_TRACES_SAMPLER: "bogus" }]) {
    expect(sampled(env, ROOT_CONTEXT)).toBe(true);
    expect(sampled(env, underClient(true))).toBe(true);
    expect(sampled(env, underClient(false))).toBe(false);
  }
});

it("always_on and always_off ignore the parent", () => {
  expect(sampled({ OTEL_TRACES_SAMPLER: "always_on" }, underClient(false))).toBe(true);
  expect(sampled({ OTEL_TRACES_SAMPLER: "ALWAYS_OFF" }, underClient(true))).toBe(false);
});

it("parentbased_always_off samples only under a sampled parent", () => {
  const env = { OTEL_TRACES_SAMPLER: "parentbased_always_off" };
  expect(sampled(env, ROOT_CONTEXT)).toBe(false);
  expect(sampled(env, underClient(true))).toBe(true);
});

it("traceidratio takes its ratio from OTEL_TRACES_SAMPLER_ARG, 1 when it is missing or out of range", () => {
  const word = (n: number) => ((n * 0x9e3779b1) >>> 0).toString(16).padStart(8, "0");
  const ids = Array.from({ length: 64 }, (_, i) => word(i + 1) + word(i + 101) + word(i + 211) + word(i + 307));
  const share = (env: NodeJS.ProcessEnv) => ids.filter((id) => sampled(env, ROOT_CONTEXT, id)).length;
  expect(share({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" })).toBe(0);
  expect(share({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1" })).toBe(ids.length);
  expect(share({ OTEL_TRACES_SAMPLER: "traceidratio" })).toBe(ids.length);
  expect(share({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "1.5" })).toBe(ids.length);
  const half = share({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.5" });
  expect(half).toBeGreaterThan(0);
  expect(half).toBeLessThan(ids.length);
  // Under a sampled parent the parent-based ratio samples whatever the ratio.
  const parentBased = { OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0" };
  expect(sampled(parentBased, underClient(true))).toBe(true);
  expect(sampled(parentBased, ROOT_CONTEXT)).toBe(false);
});
