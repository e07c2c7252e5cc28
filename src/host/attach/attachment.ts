// One client attached to a session (session/attach): its role, and its own bounded queue of updates on their way. A
// client that falls further behind than the queue holds is detached, told why and after which event, and the session
// never waits for it. While its replay is sent, the live updates wait here and follow it without gap or duplicate.
import { randomUUID } from "node:crypto";
import { compareEventPositions, formatEventId, type EventPosition } from "../../protocol/event-id.js";
import {
  DETACHED_NOTIFICATION,
  type AttachRole,
  type DetachedNotification,
  type Participant,
} from "../../protocol/attach.js";
import { codeOf, type ErrorReason } from "../../protocol/errors.js";
import type { Logger } from "../../logger.js";
import type { Peer } from "../connection/peer.js";
import type { WireMessage } from "../connection/wire-message.js";
import { notification, shownTo, type ShownUpdate } from "./shown-update.js";

/**
 * How long an observer's writes are held to leave together. Each write to a socket is a system call that costs the
 * main thread as much as the rest of an update's fan-out (loopback TCP delivers in the sender's call): a hundred
 * observers of a busy session wrote each batch of its events a hundred times; held this long, a turn's updates reach
 * an observer in one or two writes. A controller's writes are never held: its turn's answer would wait with them.
 */
const OBSERVER_HOLD_MS = 10;

export class Attachment {
  readonly id = randomUUID();
  readonly peer: Peer;
  readonly role: AttachRole;
  readonly #sessionId: string;
  readonly #maxQueuedBytes: number;
  readonly #logger: Logger;
  #onEnd: (attachment: Attachment) => void;
  #queuedBytes = 0;
  #last: EventPosition | null = null;
  /** Live updates that came while the replay was being sent; null once it has been. */
  #held: ShownUpdate[] | null = [];
  #heldBytes = 0;
  /** Notices that came while the replay was being sent: they follow the updates held with them. */
  #heldNotices: [method: string, params: Record<string, unknown>][] = [];
  #ended = false;
  readonly #drainWaiters: (() => void)[] = [];

  constructor(
    sessionId: string,
    peer: Peer,
    role: AttachRole,
    options: { maxQueuedBytes: number; logger: Logger; onEnd: (attachment: Attachment) => void },
  ) {
    this.#sessionId = sessionId;
    this.peer = peer;
    this.role = role;
    this.#maxQueuedBytes = options.maxQueuedBytes;
    this.#logger = options.logger;
    this.#onEnd = options.onEnd;
    peer.countAttachment(1);
  }

  get participant(): Participant {
    return { attachmentId: this.id, role: this.role };
  }

  get ended(): boolean {
    return this.#ended || this.peer.closed;
  }

  /** Only what follows the cursor is sent (the client has the rest). */
  startAfter(cursor: EventPosition): void {
    this.#last = cursor;
  }

  /** The last update sent to it (null: none). */
  get lastEventId(): string | null {
    return this.#last ? formatEventId(this.#last) : null;
  }

  /** A live update: sent, or held while the replay is on its way. */
  live(shown: ShownUpdate): void {
    if (this.ended || !shownTo(shown, this.peer.understands)) return;
    if (this.#held) {
      this.#held.push(shown);
      this.#heldBytes += shown.bytes;
      if (this.#heldBytes > this.#maxQueuedBytes) this.#tooSlow();
      return;
    }
    this.#send(shown);
  }

  /** An update of its replay (older than every live one it holds): sent unless it was sent already. */
  replayed(shown: ShownUpdate): void {
    if (this.ended || !shownTo(shown, this.peer.understands)) return;
    this.#send(shown);
  }

  /** The replay is out: what came live meanwhile follows, less what the replay already showed. */
  goLive(): void {
    const held = this.#held ?? [];
    this.#held = null;
    this.#heldBytes = 0;
    for (const shown of held) this.#send(shown);
    for (const [method, params] of this.#heldNotices.splice(0)) this.notify(method, params);
  }

  /** Tells this client something about the session (a turn's end), in order with its updates. */
  notify(method: string, params: Record<string, unknown>): void {
    if (this.ended) return;
    if (this.#held) {
      this.#heldNotices.push([method, params]);
      return;
    }
    // The same way as its updates, so it never overtakes them.
    if (this.#writeDirectly(notification(method, params), () => {})) return;
    this.peer.client.notify(method, params).catch(() => {});
  }

  /** An update of one of the session's children (its own numbering), for a client that understands subagents. */
  relay(sessionId: string, update: ShownUpdate): void {
    if (this.ended || !this.peer.understands.subagents || !shownTo(update, this.peer.understands)) return;
    if (this.#held) return;
    if (this.#queuedBytes > 0 && this.#queuedBytes + update.bytes > this.#maxQueuedBytes) return this.#tooSlow();
    this.#queue(sessionId, update);
  }

  /** Whether half its queue is taken: a replay waits for it (drained) before it sends more. */
  get behind(): boolean {
    return this.#queuedBytes * 2 > this.#maxQueuedBytes;
  }

  /** From now on its end is told here (it moves from a session served here to one followed in the store). */
  handOver(onEnd: (attachment: Attachment) => void): void {
    this.#onEnd = onEnd;
  }

  /** Resolves once nothing sent to it is on its way, or it has ended. */
  /** Whether what it was sent left its queue within ms (false: it still waits, or the attachment ended first). */
  async drainedWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
    try {
      return await Promise.race([this.drained().then(() => !this.ended), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  drained(): Promise<void> {
    if (this.#queuedBytes === 0 || this.ended) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Ends it (detach, or its session closed); idempotent. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.peer.countAttachment(-1);
    this.#held = null;
    this.#onEnd(this);
    for (const resolve of this.#drainWaiters.splice(0)) resolve();
  }

  #send(shown: ShownUpdate): void {
    // What this client has been sent already (a replay's last update, seen again live) is not sent twice.
    if (this.#last && compareEventPositions(shown.position, this.#last) <= 0) return;
    // One update larger than the whole queue still goes, alone.
    if (this.#queuedBytes > 0 && this.#queuedBytes + shown.bytes > this.#maxQueuedBytes) return this.#tooSlow();
    this.#last = shown.position;
    this.#queue(this.#sessionId, shown);
  }

  #queue(sessionId: string, shown: ShownUpdate): void {
    this.#queuedBytes += shown.bytes;
    const sent = () => {
      this.#queuedBytes -= shown.bytes;
      if (this.#queuedBytes === 0) for (const resolve of this.#drainWaiters.splice(0)) resolve();
    };
    // Serialized once for every client of the session it was numbered for (a child's, relayed, has its own id).
    if (this.peer.writesDirectly) {
      const wire = shown.wire ?? notification("session/update", { sessionId, update: shown.update });
      if (this.#writeDirectly(wire, sent)) return;
    }
    this.peer.client
      .notify("session/update", { sessionId, update: shown.update })
      .catch(() => {})
      .finally(sent);
  }

  #tooSlow(): void {
    if (this.#ended) return;
    this.#logger.warn(
      {
        attachmentId: this.id,
        connection: this.peer.label,
        maxQueuedBytes: this.#maxQueuedBytes,
        lastEventId: this.lastEventId,
      },
      "attached client fell further behind than its queue holds: detached",
    );
    this.endWith(
      "OBSERVER_TOO_SLOW",
      `this client fell more than ${this.#maxQueuedBytes} bytes of updates behind: detached; attach again after event ${this.lastEventId ?? "(none)"}`,
    );
  }

  /** Ends it and tells its client why (DETACHED_NOTIFICATION), with the last event it was sent. */
  endWith(reason: ErrorReason, message: string): void {
    if (this.ended) return this.end();
    const notice: DetachedNotification = {
      sessionId: this.#sessionId,
      attachmentId: this.id,
      error: { code: codeOf(reason), message, data: { reason, lastEventId: this.lastEventId } },
    };
    if (!this.#writeDirectly(notification(DETACHED_NOTIFICATION, notice), () => {}))
      this.peer.client.notify(DETACHED_NOTIFICATION, notice).catch(() => {});
    this.end();
  }

  /** Straight to its WebSocket (an observer's held a moment: OBSERVER_HOLD_MS); false where it has none. */
  #writeDirectly(message: WireMessage, done: () => void): boolean {
    if (!this.peer.writesDirectly) return false;
    if (this.role === "observer") this.peer.holdDirectWrites(OBSERVER_HOLD_MS);
    return this.peer.writeDirectly(message, done);
  }
}
