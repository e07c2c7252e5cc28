// A session/update's event id (`_meta.eventId`): its place in the session, taken from the session log's order, so the
// same update has the same id after a restart, a hibernation, a crash restore or a move to another host.
//   "<entry>.<update>"              the update-th (from 0) update that shows the log's entry-th replayable entry
//   "<entry>.<update>.<transient>"  the transient-th update after it that no entry shows (tool output as it runs,
//                                   usage, a mode or title change): live only, never in a replay from the log
// Ids compare as tuples of numbers; a shorter one comes before its own extensions.

/** [entry, update, transient]: transient 0 for an update that shows an entry. */
export type EventPosition = readonly [entry: number, update: number, transient: number];

/**
 * The update index of the last update of an entry shown by an earlier worker, which the host cannot count: what
 * follows it without an entry of its own is numbered after it, and the entry after it comes after that.
 */
export const PAST_UPDATES = 999_999;

const EVENT_ID = /^(\d{1,15})\.(\d{1,15})(?:\.(\d{1,15}))?$/;

export function formatEventId([entry, update, transient]: EventPosition): string {
  return transient === 0 ? `${entry}.${update}` : `${entry}.${update}.${transient}`;
}

/** null: not an event id this host gives. */
export function parseEventId(id: string): EventPosition | null {
  const match = EVENT_ID.exec(id);
  if (!match) return null;
  return [Number(match[1]), Number(match[2]), match[3] === undefined ? 0 : Number(match[3])];
}

export function compareEventPositions(a: EventPosition, b: EventPosition): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** Numbers a session's updates as they are shown (live), or as a replay of its log shows them again. */
export class EventClock {
  #last: [number, number, number];

  constructor(start: EventPosition = [0, 0, 0]) {
    this.#last = [...start];
  }

  get last(): EventPosition {
    return this.#last;
  }

  /** A worker opened on a log of `shown` replayable entries: each was shown before, in full. */
  restored(shown: number): void {
    const past: EventPosition = [shown, PAST_UPDATES, 0];
    if (compareEventPositions(past, this.#last) > 0) this.#last = [...past];
  }

  /** An update that shows the entry numbered seq (the next one of that entry, or its first). */
  entry(seq: number): EventPosition {
    const [entry, update] = this.#last;
    if (seq > entry) this.#last = [seq, 0, 0];
    else if (seq === entry && update !== PAST_UPDATES) this.#last = [seq, update + 1, 0];
    // An entry numbered below one already shown cannot come from a live turn: numbered as what it is, after the last.
    else return this.transient();
    return this.#last;
  }

  /** An update that shows no entry: after the last one. */
  transient(): EventPosition {
    this.#last = [this.#last[0], this.#last[1], this.#last[2] + 1];
    return this.#last;
  }
}
