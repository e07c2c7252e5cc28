// How many requests an endpoint may have in flight at once: AIMD, as TCP's congestion window. A refusal (429) halves
// it; successes grow it by one per window's worth of them (one per round trip), so a window that found the provider's
// limit probes past it about once every `limit` successes rather than once every success. It never goes past the
// operator's cap (--model-concurrency) and never below one.

/** The window a provider without a known cap starts at: enough for a few sessions, few enough to rarely be refused. */
export const INITIAL_WINDOW = 4;
/** Where the learned window stops growing when the operator gave no cap. */
export const UNCAPPED_CEILING = 256;

export class ConcurrencyWindow {
  readonly cap: number | null;
  #size: number;
  /** Bumped on each shrink: a refusal of a request sent before it says nothing new about the current window. */
  #epoch = 0;

  constructor(cap: number | null) {
    this.cap = cap;
    this.#size = cap ?? INITIAL_WINDOW;
  }

  /** Requests that may be in flight now. */
  get size(): number {
    return Math.max(1, Math.floor(this.#size));
  }

  get epoch(): number {
    return this.#epoch;
  }

  /** A request sent in `sentEpoch` succeeded. */
  grow(): void {
    this.#size = Math.min(this.cap ?? UNCAPPED_CEILING, this.#size + 1 / this.size);
  }

  /** A request sent in `sentEpoch` was refused: the window halves once per epoch. */
  shrink(sentEpoch: number): void {
    if (sentEpoch !== this.#epoch) return;
    this.#size = Math.max(1, this.size / 2);
    this.#epoch++;
  }
}
