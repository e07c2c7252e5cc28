// A model stream that goes quiet: no byte for --model-idle-timeout-ms aborts the attempt (a retryable failure),
// whatever the turn's own signal does. The turn's cancel still aborts at once.

/** The attempt was aborted because the server sent nothing for too long. */
export class ModelIdle extends Error {
  constructor(readonly idleMs: number) {
    super(`no bytes from the model for ${idleMs} ms (--model-idle-timeout-ms)`);
  }
}

export class IdleWatch {
  readonly signal: AbortSignal;
  readonly #controller = new AbortController();
  readonly #idleMs: number;
  readonly #onTurnAbort: () => void;
  readonly #turn: AbortSignal;
  #timer: NodeJS.Timeout | null = null;

  /** idleMs 0: never idle (the turn's signal only). */
  constructor(turn: AbortSignal, idleMs: number) {
    this.#turn = turn;
    this.#idleMs = idleMs;
    this.signal = this.#controller.signal;
    this.#onTurnAbort = () => this.#controller.abort(turn.reason);
    if (turn.aborted) this.#onTurnAbort();
    else turn.addEventListener("abort", this.#onTurnAbort, { once: true });
    this.touch();
  }

  /** Whether the attempt ended because the stream went quiet (not because the turn was cancelled). */
  get idle(): boolean {
    return this.#controller.signal.reason instanceof ModelIdle;
  }

  /** Bytes arrived: the quiet period starts again. */
  touch(): void {
    if (this.#idleMs === 0 || this.#controller.signal.aborted) return;
    if (this.#timer) this.#timer.refresh();
    else this.#timer = setTimeout(() => this.#controller.abort(new ModelIdle(this.#idleMs)), this.#idleMs);
  }

  /** The stream is not read while the client is behind: that quiet is not the server's. */
  async pausedWhile(wait: Promise<void>): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    await wait;
    this.touch();
  }

  /** Throws the idle failure if the stream went quiet. */
  check(): void {
    if (this.idle) throw this.#controller.signal.reason as ModelIdle;
  }

  dispose(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#turn.removeEventListener("abort", this.#onTurnAbort);
  }
}
