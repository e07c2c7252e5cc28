// The requests that wait for room at one endpoint, in the order they get it (fair-queue.ts decides it). A request
// refused by the provider goes back to the head: it keeps the place it had.

export interface WaitQueue<T> {
  readonly size: number;
  push(item: T): void;
  /** Back at the head (a refused request). */
  unshift(item: T): void;
  /** The next to send, or undefined. */
  shift(): T | undefined;
  /** The next to send, left in place. */
  peek(): T | undefined;
  /** Taken out wherever it is (a cancel, a timeout); false when it was not there. */
  remove(item: T): boolean;
  /** Every waiting item, in no promised order. */
  values(): Iterable<T>;
}
