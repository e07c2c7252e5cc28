// What a client has applied of each session, by event id: an update it has had already (a replay after a reconnection
// that overlaps what it saw) is not applied twice, and a re-attach starts after the last one.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { EVENT_ID_META_KEY } from "../protocol/attach.js";
import { compareEventPositions, parseEventId, type EventPosition } from "../protocol/event-id.js";

export class EventCursors {
  readonly #last = new Map<string, { position: EventPosition; id: string }>();

  /** Whether the update is new for its session (then it is the last applied); one without an event id always is. */
  admit(sessionId: string, update: SessionUpdate): boolean {
    const id = update._meta?.[EVENT_ID_META_KEY];
    const position = typeof id === "string" ? parseEventId(id) : null;
    if (!position) return true;
    const last = this.#last.get(sessionId);
    if (last && compareEventPositions(position, last.position) <= 0) return false;
    this.#last.set(sessionId, { position, id: id as string });
    return true;
  }

  /** Attached without a replay, after this event: a re-attach starts there if nothing was applied since. */
  attachedAfter(sessionId: string, id: string | null): void {
    const position = id === null ? null : parseEventId(id);
    if (position && !this.#last.has(sessionId)) this.#last.set(sessionId, { position, id: id! });
  }

  /** The id of the last update applied for the session; null: none with an id. */
  lastEventId(sessionId: string): string | null {
    return this.#last.get(sessionId)?.id ?? null;
  }
}
