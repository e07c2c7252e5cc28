// The last updates a session showed, bounded by their size: an attach after an event it still holds is answered from
// here, exactly (the updates no log entry shows included); an older cursor is answered from the log. An update
// dropped past the bound is let go at once (its slot emptied), and the emptied slots are cut away once they are half
// the array: what it holds is the bound's worth of updates, whatever a client does.
import { compareEventPositions, type EventPosition } from "../../protocol/event-id.js";
import type { ShownUpdate } from "./shown-update.js";

/** Emptied slots are cut away once there are this many and they are half the array. */
const COMPACT_AT = 64;

export class RecentUpdates {
  readonly #maxBytes: number;
  /** Slots before #head are emptied (null): their updates were dropped. */
  #updates: Array<ShownUpdate | null> = [];
  #head = 0;
  #bytes = 0;
  /** Every update at or before it has been dropped (or was shown before these were kept). */
  #floor: EventPosition;

  constructor(maxBytes: number, floor: EventPosition) {
    this.#maxBytes = maxBytes;
    this.#floor = floor;
  }

  add(shown: ShownUpdate): void {
    this.#updates.push(shown);
    this.#bytes += shown.bytes;
    while (this.#bytes > this.#maxBytes && this.#head < this.#updates.length) {
      const dropped = this.#updates[this.#head]!;
      this.#updates[this.#head++] = null;
      this.#bytes -= dropped.bytes;
      this.#floor = dropped.position;
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#updates.length) {
      this.#updates = this.#updates.slice(this.#head);
      this.#head = 0;
    }
  }

  /** What followed the cursor, if every update after it is still held; else null (the log must answer). */
  after(cursor: EventPosition): ShownUpdate[] | null {
    if (compareEventPositions(cursor, this.#floor) < 0) return null;
    const held = this.#updates.slice(this.#head) as ShownUpdate[];
    return held.filter((shown) => compareEventPositions(shown.position, cursor) > 0);
  }
}
