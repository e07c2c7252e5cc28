// New sessions' workers are leased one per turn of the event loop, and none while a session/new is being answered:
// making a thread blocks the main thread for a while, and a burst of session/new must be answered between those,
// not after all of them (a prompt still wakes its own session at once). The start gate (start-gate.ts) then bounds
// how many threads start at once.

/** What is started: a session whose worker is to be leased. */
export interface Startable {
  start(): void;
}

export class StartScheduler {
  readonly #queue: Startable[] = [];
  /** session/new requests being answered: the queued starts wait until none is left. */
  #creating = 0;
  #scheduled = false;

  /** Starts it soon, after the session/new requests being answered and the starts queued before it. */
  startSoon(session: Startable): void {
    this.#queue.push(session);
    this.#schedule();
  }

  /** Marks a session/new in progress; the returned function ends it. */
  creating(): () => void {
    this.#creating++;
    return () => {
      this.#creating--;
      this.#schedule();
    };
  }

  #schedule(): void {
    if (this.#scheduled || this.#creating > 0 || this.#queue.length === 0) return;
    this.#scheduled = true;
    // The next loop turn, not this one's end: stdout writes the answers of a loop turn at its end (stdio-stream.ts),
    // and a start queued beside them would run first and hold them back.
    setImmediate(() => setImmediate(this.#next));
  }

  readonly #next = (): void => {
    this.#scheduled = false;
    if (this.#creating > 0) return;
    this.#queue.shift()?.start();
    this.#schedule();
  };
}
