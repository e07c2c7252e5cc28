// What a provider's response headers say about when it will take more: Retry-After (seconds or a date),
// retry-after-ms, and OpenAI's x-ratelimit-{remaining,reset}-{requests,tokens} (resets as Go-style durations:
// a number and a unit, minutes then seconds, or milliseconds). DeepSeek sends none of them: a refusal without headers is met with the scheduler's own backoff.
import { retryAfterMs } from "../models/retry.js";

export interface RateLimit {
  remaining: number;
  /** ms from the response until the limit is reset; null when the provider did not say. */
  resetMs: number | null;
}

export interface RateHeaders {
  /** The server's own wait (retry-after-ms or retry-after), capped; null when absent. */
  retryAfterMs: number | null;
  requests: RateLimit | null;
  tokens: RateLimit | null;
}

export function rateHeaders(headers: Headers | undefined, now = Date.now()): RateHeaders {
  return {
    retryAfterMs: retryAfterMs(headers, now),
    requests: limit(headers, "requests"),
    tokens: limit(headers, "tokens"),
  };
}

function limit(headers: Headers | undefined, kind: "requests" | "tokens"): RateLimit | null {
  const remaining = Number.parseInt(headers?.get(`x-ratelimit-remaining-${kind}`) ?? "", 10);
  if (!Number.isFinite(remaining)) return null;
  return { remaining: Math.max(0, remaining), resetMs: durationMs(headers?.get(`x-ratelimit-reset-${kind}`) ?? null) };
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go-style duration (units h, m, s, ms, in any sequence) or bare seconds; null when it is neither. */
export function durationMs(text: string | null): number | null {
  if (text === null || text.trim() === "") return null;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number.parseFloat(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((part) => part[0]).join("") !== trimmed) return null;
  return parts.reduce((sum, part) => sum + Number.parseFloat(part[1]!) * UNIT_MS[part[2]!]!, 0);
}
