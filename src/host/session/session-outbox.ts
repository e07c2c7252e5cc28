// Where a session's updates go: the connection that owns it (session/new, load, resume), in the order they were sent,
// and every client attached to it (session/attach), each through its own bounded queue. Every update is numbered
// (its event id) and kept among the recent ones once a client has attached. An update produced for one connection
// never reaches a connection that takes the session over later. A child session that no connection owns follows its
// parent's (follow): its updates reach its parent's owner and attached clients that understand subagents.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { EventClock, type EventPosition } from "../../protocol/event-id.js";
import type { Logger } from "../../logger.js";
import type { Peer } from "../connection/peer.js";
import type { Attachment } from "../attach/attachment.js";
import { BoundedTail } from "../attach/bounded-tail.js";
import { RecentUpdates } from "../attach/recent-updates.js";
import { numbered, shownTo, type ShownUpdate } from "../attach/shown-update.js";

/** The recent updates kept for attached clients' reconnections, per session that has had one. */
const RECENT_UPDATE_BYTES = 1024 * 1024;
/** The running turn's updates no log entry shows (a running command's output so far) kept for an attach, at most. */
const UNLOGGED_TURN_BYTES = 256 * 1024;

export class SessionOutbox {
  readonly clock = new EventClock();
  readonly #sessionId: string;
  readonly #logger: Logger;
  readonly #follow: (() => SessionOutbox | null) | null;
  readonly #attachments = new Map<string, Attachment>();
  #recent: RecentUpdates | null = null;
  /**
   * The running turn's updates that no log entry shows yet: a running tool call's status and output so far, which a
   * replay read from the log does not hold. An attach's replay ends with them; let go when the turn ends.
   */
  readonly #unlogged = new BoundedTail<ShownUpdate>(UNLOGGED_TURN_BYTES, (shown) => outputLength(shown.update), {
    keep: 1,
  });
  #owner: Peer | null = null;
  #sent: Promise<void> = Promise.resolve();

  constructor(sessionId: string, logger: Logger, follow?: () => SessionOutbox | null) {
    this.#sessionId = sessionId;
    this.#logger = logger;
    this.#follow = follow ?? null;
  }

  /** The connection its updates go to as the owner's: its own, or (a child's) its parent's when that understands subagents. */
  get attachment(): Peer | null {
    if (this.#owner) return this.#owner;
    const parent = this.#follow?.()?.attachment ?? null;
    return parent?.understands.subagents ? parent : null;
  }

  /** Settles once every update sent to the owner so far is out (or lost with its connection). */
  get drained(): Promise<void> {
    return this.#sent;
  }

  attach(peer: Peer): void {
    this.#owner = peer;
  }

  /** false when peer was not the one attached. */
  detach(peer: Peer): boolean {
    if (this.#owner !== peer) return false;
    this.#owner = null;
    return true;
  }

  get attachments(): readonly Attachment[] {
    return [...this.#attachments.values()];
  }

  /** Who may answer a permission request: the owner and every controller attached. */
  controllers(): Peer[] {
    const owner = this.attachment;
    const peers = owner && !owner.closed ? [owner] : [];
    for (const attachment of this.#attachments.values())
      if (attachment.role === "controller" && !attachment.ended && !peers.includes(attachment.peer))
        peers.push(attachment.peer);
    return peers;
  }

  /** Starts keeping recent updates (at the first attach) and adds the attachment. */
  add(attachment: Attachment): void {
    this.#recent ??= new RecentUpdates(RECENT_UPDATE_BYTES, this.clock.last);
    this.#attachments.set(attachment.id, attachment);
  }

  remove(attachment: Attachment): void {
    this.#attachments.delete(attachment.id);
  }

  find(attachmentId: string): Attachment | undefined {
    return this.#attachments.get(attachmentId);
  }

  /** What followed the cursor, when the recent updates still hold all of it; null: the log must answer. */
  recentAfter(cursor: EventPosition): ShownUpdate[] | null {
    return this.#recent?.after(cursor) ?? null;
  }

  /** One update made on the main thread (a title, a mode, a child's announcement): numbered after the last. */
  send(update: SessionUpdate, audience: ShownUpdate["audience"] = "all"): Promise<void> {
    return this.publish([this.number(update, this.clock.transient(), audience, false)]);
  }

  /**
   * Runs fn (a batch of the worker's events) with the direct writes to attached controllers held until it returns:
   * each one's socket writes the batch's updates at once, not one system call an update (an observer's are held
   * longer, by its attachment).
   */
  batched(fn: () => void): void {
    if (this.#attachments.size === 0) return fn();
    const release: (() => void)[] = [];
    for (const attachment of this.#attachments.values())
      if (attachment.role === "controller") release.push(attachment.peer.batchingDirectWrites());
    try {
      fn();
    } finally {
      for (const uncork of release) uncork();
    }
  }

  /** The running turn's updates that no log entry shows yet, oldest first (the last UNLOGGED_TURN_BYTES of output). */
  get unloggedOfTurn(): readonly ShownUpdate[] {
    return this.#unlogged.items;
  }

  /** The turn ended: what it showed is in its log now, or gone with it. */
  turnEnded(): void {
    this.#unlogged.clear();
  }

  /** Numbered updates, shown live: to the owner (but a prompt's own text), to every attached client, kept recent. */
  publish(updates: readonly ShownUpdate[]): Promise<void> {
    const owner = this.#owner ?? null;
    for (const shown of updates) {
      this.#recent?.add(shown);
      if (unlogged(shown.update)) this.#unlogged.add(shown);
      for (const attachment of this.#attachments.values()) attachment.live(shown);
      if (owner) {
        if (!shown.echo && shownTo(shown, owner.understands)) this.#toPeer(owner, "session/update", shown.update);
      } else {
        this.#follow?.()?.relay(this.#sessionId, shown);
      }
    }
    return this.#sent;
  }

  /** A replay for the owner (session/load), its prompts included: to it alone, kept nowhere. */
  showOwner(updates: readonly ShownUpdate[]): Promise<void> {
    const owner = this.attachment;
    if (!owner) return this.#sent;
    for (const shown of updates)
      if (shownTo(shown, owner.understands)) this.#toPeer(owner, "session/update", shown.update);
    return this.#sent;
  }

  /** A child's update, under its own id, to this session's owner and attached clients that understand subagents. */
  relay(childId: string, shown: ShownUpdate): void {
    const owner = this.#owner;
    if (owner?.understands.subagents && !shown.echo && shownTo(shown, owner.understands))
      this.#toPeer(owner, "session/update", shown.update, childId);
    for (const attachment of this.#attachments.values()) attachment.relay(childId, shown);
    if (!owner) this.#follow?.()?.relay(childId, shown);
  }

  /** A notification about this session to its owner (an extension's), in order with its updates. */
  notify(method: string, params: Record<string, unknown>): Promise<void> {
    const peer = this.attachment;
    if (!peer) return this.#sent;
    this.#chain(peer, method, params);
    return this.#sent;
  }

  /** The same, to every attached client. */
  notifyAttached(method: string, params: Record<string, unknown>): void {
    for (const attachment of this.#attachments.values()) attachment.notify(method, params);
  }

  /** An update numbered at position, sized where a queue will hold it (shown-update.ts). */
  number(
    update: SessionUpdate,
    position: EventPosition,
    audience: ShownUpdate["audience"],
    echo: boolean,
  ): ShownUpdate {
    return numbered(update, position, audience, echo, this.#recent === null ? null : this.#sessionId);
  }

  #toPeer(peer: Peer, method: string, update: SessionUpdate, sessionId = this.#sessionId): void {
    this.#chain(peer, method, { sessionId, update });
  }

  #chain(peer: Peer, method: string, params: Record<string, unknown>): void {
    const sent = this.#sent.then(() => peer.client.notify(method, params));
    this.#sent = sent.catch((error: unknown) => {
      // A connection that closed took its undelivered notifications with it; the log has what matters.
      if (!peer.closed) this.#logger.warn({ err: error, method }, `${method} not delivered`);
    });
  }
}

/** A tool call's update before its end: its status running, its output so far (its end is logged, as its result). */
function unlogged(update: SessionUpdate): boolean {
  return update.sessionUpdate === "tool_call_update" && update.status !== "completed" && update.status !== "failed";
}

function outputLength(update: SessionUpdate): number {
  if (update.sessionUpdate !== "tool_call_update") return 0;
  let length = 0;
  for (const item of update.content ?? [])
    if (item.type === "content" && item.content.type === "text") length += item.content.text.length;
  return length;
}
