// The last updates a session showed, bounded by their size (bounded-tail.ts: an update dropped past the bound is let
// go at once, so what it holds is the bound's worth of updates, whatever a client does): an attach after an event it
// still holds is answered from here, exactly (the updates no log entry shows included); an older cursor is answered
// from the log.
import { compareEventPositions, type EventPosition } from "../../protocol/event-id.js";
import { BoundedTail } from "./bounded-tail.js";
import type { ShownUpdate } from "./shown-update.js";

export class RecentUpdates {
  readonly #updates: BoundedTail<ShownUpdate>;
  /** Every update at or before it has been dropped (or was shown before these were kept). */
  #floor: EventPosition;

  constructor(maxBytes: number, floor: EventPosition) {
    this.#floor = floor;
    this.#updates = new BoundedTail(maxBytes, (shown) => shown.bytes, {
      onDrop: (dropped) => (this.#floor = dropped.position),
    });
  }

  add(shown: ShownUpdate): void {
    this.#updates.add(shown);
  }

  /** What followed the cursor, if every update after it is still held; else null (the log must answer). */
  after(cursor: EventPosition): ShownUpdate[] | null {
    if (compareEventPositions(cursor, this.#floor) < 0) return null;
    return this.#updates.items.filter((shown) => compareEventPositions(shown.position, cursor) > 0);
  }
}
