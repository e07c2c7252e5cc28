// The sessions this host follows in a shared store for observers attached here while another host serves them, and
// the observers of a session this host let go, which follow it on from the store: their streams go on wherever the
// session moves.
import type { AttachResponse, ReplayFrom } from "../../protocol/attach.js";
import type { Logger } from "../../logger.js";
import type { SessionFeed } from "../../store/session-store.js";
import type { Peer } from "../connection/peer.js";
import { Attachment } from "./attachment.js";
import { StoreFollower } from "./store-follower.js";

export class FollowedSessions {
  readonly #feed: SessionFeed;
  readonly #logger: Logger;
  readonly #followers = new Map<string, Set<StoreFollower>>();

  constructor(feed: SessionFeed, logger: Logger) {
    this.#feed = feed;
    this.#logger = logger;
  }

  /** An observer attached here to a session another host serves. */
  async attach(
    peer: Peer,
    sessionId: string,
    from: ReplayFrom | undefined,
    maxQueuedBytes: number,
  ): Promise<Omit<AttachResponse, "hostId">> {
    const attachment = this.#attachment(sessionId, peer, maxQueuedBytes);
    const follower = await StoreFollower.start(sessionId, this.#feed, attachment, from, this.#logger);
    this.#add(sessionId, follower);
    return {
      attachmentId: attachment.id,
      role: "observer",
      lastEventId: follower.lastEventId,
      participants: [...(this.#followers.get(sessionId) ?? [])].map((other) => other.attachment.participant),
      // The host serving it knows; this one sees only what its owner commits.
      turnRunning: false,
      lastStopReason: null,
      promptId: null,
    };
  }

  /** An observer of a session this host let go: it follows the session on from the store, after what it was shown. */
  adopt(sessionId: string, attachment: Attachment): void {
    StoreFollower.adopt(sessionId, this.#feed, attachment, this.#logger).then(
      (follower) => this.#add(sessionId, follower),
      (error: unknown) => {
        this.#logger.warn({ sessionId, err: error }, "an observer could not follow a session that left this host");
        attachment.end();
      },
    );
  }

  /** Whether the peer follows the session here as an observer (the session served by another host of the fleet). */
  observes(peer: Peer, sessionId: string): boolean {
    for (const follower of this.#followers.get(sessionId) ?? [])
      if (follower.attachment.peer === peer && !follower.attachment.ended) return true;
    return false;
  }

  /** false: no such attachment of this peer. */
  detach(peer: Peer, sessionId: string, attachmentId: string): boolean {
    for (const follower of this.#followers.get(sessionId) ?? [])
      if (follower.attachment.id === attachmentId && follower.attachment.peer === peer) {
        follower.stop();
        return true;
      }
    return false;
  }

  /** The peer's connection closed. */
  dropPeer(peer: Peer): void {
    for (const followers of [...this.#followers.values()])
      for (const follower of [...followers]) if (follower.attachment.peer === peer) follower.stop();
  }

  stopAll(): void {
    for (const followers of [...this.#followers.values()]) for (const follower of [...followers]) follower.stop();
  }

  #attachment(sessionId: string, peer: Peer, maxQueuedBytes: number): Attachment {
    return new Attachment(sessionId, peer, "observer", { maxQueuedBytes, logger: this.#logger, onEnd: () => {} });
  }

  #add(sessionId: string, follower: StoreFollower): void {
    // Detached while its replay was being read (its client fell behind, or left).
    if (follower.attachment.ended) {
      follower.stop();
      return;
    }
    let followers = this.#followers.get(sessionId);
    if (!followers) this.#followers.set(sessionId, (followers = new Set()));
    followers.add(follower);
    follower.attachment.handOver(() => {
      followers.delete(follower);
      if (followers.size === 0) this.#followers.delete(sessionId);
      follower.stop();
    });
  }
}
