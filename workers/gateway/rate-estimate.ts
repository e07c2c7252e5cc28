// What is left of one of a provider's rate limits (requests, or tokens) until its reset, as its x-ratelimit-* headers
// last said, with what was sent since counted off. Requests sent together may reach the provider in another order, so
// a report can be one off either way: within one reset the lowest estimate wins, so a window's last place may go
// unused but nothing is refused for it.
import type { RateLimit } from "./rate-headers.js";

/** A limit reported without its reset is taken to reset within a second (then the provider is asked again). */
const UNSAID_RESET_MS = 1_000;

export class RateEstimate {
  #left = 0;
  /** What had been sent (requests, or tokens) when `#left` was estimated. */
  #sentAt = 0;
  /** The reset, with its jitter; 0: nothing known. */
  #resetAtMs = 0;

  /**
   * The provider said `limit` in its answer to what was sent up to `sentAt`; `sentNow` has been sent by now. `jitter`
   * is added to the reset, so sessions held together do not all come back together.
   */
  learn(limit: RateLimit, sentAt: number, sentNow: number, now: number, jitter: (waitMs: number) => number): void {
    const resetMs = limit.resetMs ?? UNSAID_RESET_MS;
    const left = limit.remaining - (sentNow - sentAt);
    const held = this.left(sentNow, now);
    if (held !== null && held.left <= left) return;
    this.#left = left;
    this.#sentAt = sentNow;
    this.#resetAtMs = now + resetMs + jitter(resetMs);
  }

  /** What is left now and until when; null when nothing is known (never said, or past its reset). */
  left(sentNow: number, now: number): { left: number; untilMs: number } | null {
    if (this.#resetAtMs <= now) return null;
    return { left: this.#left - (sentNow - this.#sentAt), untilMs: this.#resetAtMs };
  }
}
