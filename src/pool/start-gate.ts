// How many session threads may be loading at once while the host is answering a burst of session/new. A thread's
// start is CPU work (its isolate, its bundle); a hundred of them at once share the machine's cores with the main
// thread, whose session/new answers then wait behind them. While throttled, starts beyond the limit wait their turn,
// in order; otherwise (the usual case, where a start held back only delays the work it was meant for) they all go.
export class StartGate {
  readonly #limit: number;
  #running = 0;
  #throttled = false;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    this.#limit = Math.max(1, limit);
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Throttled or not from now on; lifting it lets every waiting start go. */
  throttle(on: boolean): void {
    this.#throttled = on;
    if (!on) for (const grant of this.#waiting.splice(0)) grant();
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
          if (this.#running < this.#limit || !this.#throttled) this.#waiting.shift()?.();
        });
      };
      if (!this.#throttled || this.#running < this.#limit) grant();
      else this.#waiting.push(grant);
    });
  }
}
