// How many requests an endpoint may have in flight at once: AIMD, as TCP's congestion window. A refusal (429) halves
// it; successes grow it by one per window's worth of them (one per round trip). Once a refusal has shown where the
// provider's limit is, growing past the last size that was refused goes eight times slower: a window that found the
// limit probes past it rarely, since each probe costs a refusal and, with a Retry-After, a pause of the whole endpoint.
// It never goes past the operator's cap (--model-concurrency) and never below one.

/** The window a provider without a known cap starts at: enough for a few sessions, few enough to rarely be refused. */
export const INITIAL_WINDOW = 4;
/** Where the learned window stops growing when the operator gave no cap. */
export const UNCAPPED_CEILING = 256;
/** How much slower the window grows at and past the size last refused. */
const PLATEAU_SLOWDOWN = 8;

export class ConcurrencyWindow {
  readonly cap: number | null;
  #size: number;
  /** The size a refusal last came at; null before any. */
  #refusedAt: number | null = null;
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

  /** A request succeeded. */
  grow(): void {
    const plateau = this.#refusedAt !== null && this.size + 1 >= this.#refusedAt;
    const step = 1 / (this.size * (plateau ? PLATEAU_SLOWDOWN : 1));
    this.#size = Math.min(this.cap ?? UNCAPPED_CEILING, this.#size + step);
  }

  /** A request sent in `sentEpoch` was refused: the window halves once per epoch. */
  shrink(sentEpoch: number): void {
    if (sentEpoch !== this.#epoch) return;
    this.#refusedAt = this.size;
    this.#size = Math.max(1, Math.floor(this.size / 2));
    this.#epoch++;
  }
}
