// How many session threads may be loading at once. A thread's start is CPU work (its isolate, its bundle); a hundred
// of them at once share the machine's cores with the main thread, whose answers (session/new, every other session's
// updates) then wait behind them. Starts beyond the limit wait their turn, in order.
export class StartGate {
  readonly #limit: number;
  #running = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves with the release of a permit once one is free. */
  acquire(): Promise<() => void> {
    return new Promise((resolve) => {
      const grant = () => {
        this.#running++;
        let released = false;
        resolve(() => {
          if (released) return;
          released = true;
          this.#running--;
          this.#waiting.shift()?.();
        });
      };
      if (this.#running < this.#limit) grant();
      else this.#waiting.push(grant);
    });
  }
}
