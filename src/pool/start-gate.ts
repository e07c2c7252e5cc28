// How many session threads may be loading at once. A thread's start is CPU work (its isolate, its bundle): two
// hundred of them at once share the machine's cores with each other and with the main thread, so every session waits
// for the slowest start and the main thread, one runnable thread among hundreds, answers nothing for seconds (the
// figures, gated and not: docs/performance.md, "Measured choices in the code").
// Starts beyond the limit wait their turn, in order.
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

  /** Resolves with the release of a permit once one is free; releasing twice counts once. */
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
