// An observer attached at a host that does not serve the session (a fleet on a shared store): it follows the session's
// log in the store as its owner commits it. It is shown what session/load would show, numbered as the owner numbers
// it (the same event ids), live as each group commit is announced; the updates no log entry shows (tool output as it
// runs, usage) are the owner's clients' only.
import { ReplayRenderer } from "../../protocol/log/replay-events.js";
import { LogEntry } from "../../protocol/log/session-log.js";
import { compareEventPositions, EventClock, formatEventId, parseEventId } from "../../protocol/event-id.js";
import type { ReplayFrom } from "../../protocol/attach.js";
import { hostError, invalidParams } from "../../request-errors.js";
import type { Logger } from "../../logger.js";
import type { SessionFeed, ShownRecord } from "../../store/session-store.js";
import { numberedUpdates } from "../session/numbered-updates.js";
import type { Attachment } from "./attachment.js";
import { numbered, type Numbering, type ShownUpdate } from "./shown-update.js";

export class StoreFollower {
  readonly attachment: Attachment;
  readonly #sessionId: string;
  readonly #feed: SessionFeed;
  readonly #logger: Logger;
  readonly #renderer = new ReplayRenderer();
  readonly #clock = new EventClock();
  /** Numbered and serialized: a follower's updates always wait in its attachment's queue. */
  readonly #numbering: Numbering = {
    number: (update, position, audience, echo) => numbered(update, position, audience, echo, this.#sessionId),
  };
  #afterSeq = -1;
  #reading: Promise<void> = Promise.resolve();
  #stopWatching: () => void = () => {};

  private constructor(sessionId: string, feed: SessionFeed, attachment: Attachment, logger: Logger) {
    this.#sessionId = sessionId;
    this.#feed = feed;
    this.attachment = attachment;
    this.#logger = logger;
  }

  /**
   * Reads what the store holds (watching first: a commit meanwhile is read after it), sends the replay asked for,
   * then goes live. from: as session/attach's replayFrom; a cursor past the log's end is CURSOR_GAP.
   */
  static async start(
    sessionId: string,
    feed: SessionFeed,
    attachment: Attachment,
    from: ReplayFrom | undefined,
    logger: Logger,
  ): Promise<StoreFollower> {
    const follower = new StoreFollower(sessionId, feed, attachment, logger);
    follower.#stopWatching = feed.watch(sessionId, () => follower.#readMore());
    try {
      await follower.#first(from);
    } catch (error) {
      follower.stop();
      throw error;
    }
    return follower;
  }

  /** The last update the store has shown it (null: none). */
  get lastEventId(): string | null {
    const last = this.#clock.last;
    return last[0] === 0 ? null : formatEventId(last);
  }

  stop(): void {
    this.#stopWatching();
    this.attachment.end();
  }

  /** Follows on after what it was shown on the host that served the session (which let it go). */
  static adopt(sessionId: string, feed: SessionFeed, attachment: Attachment, logger: Logger): Promise<StoreFollower> {
    const cursor = attachment.lastEventId;
    return StoreFollower.start(
      sessionId,
      feed,
      attachment,
      cursor ? { type: "after_event", eventId: cursor } : { type: "start" },
      logger,
    );
  }

  async #first(from: ReplayFrom | undefined): Promise<void> {
    const read = this.#read();
    this.#reading = read.then(() => {});
    const history = await read;
    if (from?.type === "after_event") {
      const cursor = parseEventId(from.eventId);
      if (!cursor) throw invalidParams("replayFrom.eventId", `not an event id of this host: ${from.eventId}`);
      if (compareEventPositions(cursor, this.#clock.last) > 0)
        throw hostError("CURSOR_GAP", `session ${this.#sessionId}'s log holds no event ${from.eventId}`, {
          sessionId: this.#sessionId,
          lastEventId: this.lastEventId,
        });
      this.attachment.startAfter(cursor);
    } else if (!from) {
      this.attachment.startAfter(this.#clock.last);
    }
    for (const shown of history) {
      this.attachment.replayed(shown);
      if (this.attachment.behind) await this.attachment.drained();
    }
    this.attachment.goLive();
  }

  #readMore(): void {
    this.#reading = this.#reading
      .then(() => this.#read())
      .then((shown) => {
        for (const update of shown) this.attachment.live(update);
      })
      .catch((error: unknown) => this.#logger.warn({ err: error }, "a followed session's records could not be read"));
  }

  /** The records committed since the last read, as numbered updates. */
  async #read(): Promise<ShownUpdate[]> {
    const records = await this.#feed.shownAfter(this.#sessionId, this.#afterSeq);
    return records.flatMap((record) => this.#show(record));
  }

  #show(record: ShownRecord): ShownUpdate[] {
    this.#afterSeq = record.seq;
    let entry: LogEntry;
    try {
      entry = LogEntry.parse(JSON.parse(record.entry));
    } catch {
      this.#logger.warn({ sessionId: this.#sessionId, seq: record.seq }, "a stored record is not a log entry: skipped");
      return [];
    }
    return this.#renderer.show(entry).flatMap((event) => numberedUpdates(event, this.#clock, this.#numbering));
  }
}
