// Exponential backoff with jitter for model requests; a server's Retry-After wins when it gives one.
import { setTimeout as sleep } from "node:timers/promises";

export const RETRY_BASE_MS = 500;
export const RETRY_MAX_MS = 8_000;
const RETRY_AFTER_CAP_MS = 60_000;

/**
 * Delay before retry number `retry` (0 for the first): base·2^retry capped at RETRY_MAX_MS, of which a random
 * half is jitter, so sessions that failed together do not come back together.
 */
export function backoffMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** retry);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** The server's own wait (retry-after-ms, or retry-after in seconds or as a date), capped; null when absent. */
export function retryAfterMs(headers: Headers | undefined, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, RETRY_AFTER_CAP_MS);
  const after = headers.get("retry-after");
  if (!after) return null;
  const seconds = Number.parseFloat(after);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, RETRY_AFTER_CAP_MS);
  const date = Date.parse(after);
  return Number.isNaN(date) ? null : Math.min(Math.max(0, date - now), RETRY_AFTER_CAP_MS);
}

/** How long to wait before retry number `retry`: the server's word if it gave one (serverWaitMs), else the backoff. */
export function retryDelayMs(retry: number, serverWaitMs: number | null): number {
  return serverWaitMs ?? backoffMs(retry);
}

/** Waits before a retry; rejects at once when the turn is cancelled. */
export function waitToRetry(delayMs: number, signal: AbortSignal): Promise<void> {
  return sleep(delayMs, undefined, { signal });
}
