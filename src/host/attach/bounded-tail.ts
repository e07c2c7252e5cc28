// The newest items of a sequence within a size bound. An item the bound drops is let go at once (its slot emptied,
// not shifted out: an array of thousands moved at every item would make each one cost that many moves), and the
// emptied slots are cut away once they are half the array: what it holds is the bound's worth, past `keep` items.
export class BoundedTail<T> {
  readonly #maxSize: number;
  readonly #sizeOf: (item: T) => number;
  /** Items kept whatever their size: the newest `keep` are never dropped. */
  readonly #keep: number;
  readonly #onDrop: (item: T) => void;
  /** Slots before #head are emptied (null): their items were dropped. */
  #items: Array<T | null> = [];
  #head = 0;
  #size = 0;

  constructor(
    maxSize: number,
    sizeOf: (item: T) => number,
    options: { keep?: number; onDrop?: (item: T) => void } = {},
  ) {
    this.#maxSize = maxSize;
    this.#sizeOf = sizeOf;
    this.#keep = options.keep ?? 0;
    this.#onDrop = options.onDrop ?? (() => {});
  }

  add(item: T): void {
    this.#items.push(item);
    this.#size += this.#sizeOf(item);
    while (this.#size > this.#maxSize && this.#items.length - this.#head > this.#keep) {
      const dropped = this.#items[this.#head]!;
      this.#items[this.#head++] = null;
      this.#size -= this.#sizeOf(dropped);
      this.#onDrop(dropped);
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }

  /** Lets every item go. */
  clear(): void {
    this.#items = [];
    this.#head = 0;
    this.#size = 0;
  }

  /** The items kept, oldest first (a copy). */
  get items(): T[] {
    return this.#items.slice(this.#head) as T[];
  }
}

/** Emptied slots are cut away once there are this many and they are half the array. */
const COMPACT_AT = 64;
