// How many started, unbound workers the pool keeps ready. It learns the host's bursts: a burst is the session/new
// (leases) of one second, and the largest is remembered (whole for --burst-memory-ms, then fading by half every two
// of those, forgotten after twelve: an hour by default), so the
// threads the next burst of that size needs are started before it (in idle time) rather than during it. At least
// --warm-workers (the floor an operator pins), at most max (--max-warm-workers, and the pool's memory budget); back
// to the floor once the bursts have stopped long enough.

/** Leases counted in one burst: those of the last WINDOW_MS. */
export const WINDOW_MS = 1000;
/** How long a burst is remembered whole by default (--burst-memory-ms): an orchestrator's next fan-out comes within. */
export const HOLD_MS = 5 * 60_000;

export class StandbyTarget {
  readonly min: number;
  readonly max: number;
  readonly #leases: number[] = [];
  /** The largest burst remembered, and when it was seen. */
  #peak = 0;
  #peakAt = -Infinity;

  /** Remembered whole this long, then halving every two of these; forgotten after twelve. */
  readonly #holdMs: number;

  constructor(min: number, max: number, holdMs = HOLD_MS) {
    this.min = min;
    this.max = Math.max(min, max);
    this.#holdMs = holdMs;
  }

  recordLease(now: number): void {
    this.#leases.push(now);
    const burst = this.#burst(now);
    if (burst >= this.remembered(now)) {
      this.#peak = burst;
      this.#peakAt = now;
    }
  }

  /** The largest burst of the last hour, faded by its age. */
  remembered(now: number): number {
    const age = now - this.#peakAt;
    if (age > 12 * this.#holdMs) return 0;
    if (age <= this.#holdMs) return this.#peak;
    return Math.floor(this.#peak * 2 ** (-(age - this.#holdMs) / (2 * this.#holdMs)));
  }

  /** The standby count wanted now: the burst under way, or the one remembered, within [min, max]. */
  target(now: number): number {
    return Math.min(this.max, Math.max(this.min, this.#burst(now), this.remembered(now)));
  }

  #burst(now: number): number {
    while (this.#leases.length > 0 && this.#leases[0]! <= now - WINDOW_MS) this.#leases.shift();
    return this.#leases.length;
  }
}
