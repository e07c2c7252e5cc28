// Warnings a client can cause at will (refused requests, binary frames, stray responses, refused sockets), kept from
// flooding the log: the first of a kind from an address is logged as it comes; the repeats are counted and said in
// one line per address and kind every period, as long as they go on. The address can be any key (keyField names it in
// the lines: a connection, for the SDK's console lines).
import type { Logger } from "../logger.js";

const PERIOD_MS = 10_000;

interface Repeats {
  count: number;
  fields: Record<string, unknown>;
  msg: string;
}

export class RepeatedWarnings {
  readonly #logger: Logger;
  readonly #periodMs: number;
  /** By address and kind: the repeats since the last line (an entry lives for the period after its last line). */
  readonly #repeats = new Map<string, Repeats>();
  #timer: NodeJS.Timeout | null = null;
  readonly #keyField: string;

  constructor(logger: Logger, periodMs = PERIOD_MS, keyField = "remote") {
    this.#logger = logger;
    this.#periodMs = periodMs;
    this.#keyField = keyField;
  }

  /** kind: what happened (a few words, the same for every repeat); fields: this occurrence's details. */
  warn(remote: string | undefined, kind: string, fields: Record<string, unknown>, msg: string): void {
    const key = `${remote ?? "?"} ${kind}`;
    const repeats = this.#repeats.get(key);
    if (repeats) {
      repeats.count++;
      repeats.fields = fields;
      return;
    }
    this.#repeats.set(key, { count: 0, fields, msg });
    this.#logger.warn({ [this.#keyField]: remote, ...fields }, msg);
    this.#timer ??= setInterval(() => this.#report(), this.#periodMs).unref();
  }

  /** Says the repeats counted so far now (the process is about to exit). */
  flush(): void {
    this.#report();
  }

  #report(): void {
    for (const [key, repeats] of this.#repeats) {
      if (repeats.count === 0) {
        this.#repeats.delete(key);
        continue;
      }
      const remote = key.slice(0, key.indexOf(" "));
      this.#logger.warn(
        { [this.#keyField]: remote, ...repeats.fields, repeats: repeats.count, periodMs: this.#periodMs },
        `${repeats.msg} (repeated)`,
      );
      repeats.count = 0;
    }
    if (this.#repeats.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = null;
    }
  }
}
