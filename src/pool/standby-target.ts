// How many started, unbound workers the pool keeps ready: at least --warm-workers; while session/new arrives
// faster than workers start, as many as leases were taken in the last second (a second is about what a burst of
// worker starts takes on a small machine), up to --max-warm-workers; back to the minimum once demand is gone.

/** Leases counted: those of the last WINDOW_MS. */
export const WINDOW_MS = 1000;

export class StandbyTarget {
  readonly min: number;
  readonly max: number;
  readonly #leases: number[] = [];

  constructor(min: number, max: number) {
    this.min = min;
    this.max = Math.max(min, max);
  }

  recordLease(now: number): void {
    this.#leases.push(now);
  }

  /** The standby count wanted now. */
  target(now: number): number {
    while (this.#leases.length > 0 && this.#leases[0]! <= now - WINDOW_MS) this.#leases.shift();
    return Math.min(this.max, Math.max(this.min, this.#leases.length));
  }
}
