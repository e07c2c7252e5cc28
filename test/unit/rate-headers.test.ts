// What a provider's headers say about when it takes more: Retry-After and retry-after-ms, OpenAI's x-ratelimit-*
// with its Go-style durations, and nothing from a provider that sends none (DeepSeek).
import { expect, it } from "vitest";
import { durationMs, rateHeaders } from "../../workers/gateway/rate-headers.js";

it("reads the waits and the limits a provider sends, and nothing from one that sends none", () => {
  expect(rateHeaders(new Headers({ "retry-after": "2" })).retryAfterMs).toBe(2000);
  expect(rateHeaders(new Headers({ "retry-after-ms": "150", "retry-after": "2" })).retryAfterMs).toBe(150);
  const openai = rateHeaders(
    new Headers({
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "1m3s",
      "x-ratelimit-remaining-tokens": "1200",
      "x-ratelimit-reset-tokens": "12ms",
    }),
  );
  expect(openai).toEqual({
    retryAfterMs: null,
    requests: { remaining: 0, resetMs: 63_000 },
    tokens: { remaining: 1200, resetMs: 12 },
  });
  expect(rateHeaders(new Headers())).toEqual({ retryAfterMs: null, requests: null, tokens: null });
  expect(rateHeaders(undefined)).toEqual({ retryAfterMs: null, requests: null, tokens: null });
  expect([durationMs("0.5s"), durationMs("20"), durationMs("1h"), durationMs("soon"), durationMs("")]).toEqual([
    500,
    20_000,
    3_600_000,
    null,
    null,
  ]);
});
