// Where a session's updates go: the peer attached now, in the order they were sent. An update produced for one
// connection never reaches a connection that takes the session over later. A child session that no connection has
// attached itself follows its parent's (follow).
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { Logger } from "../../logger.js";
import type { Peer } from "../connection/peer.js";

export class SessionOutbox {
  readonly #sessionId: string;
  readonly #logger: Logger;
  readonly #follow: (() => Peer | null) | null;
  #attachment: Peer | null = null;
  #sent: Promise<void> = Promise.resolve();

  constructor(sessionId: string, logger: Logger, follow?: () => Peer | null) {
    this.#sessionId = sessionId;
    this.#logger = logger;
    this.#follow = follow ?? null;
  }

  get attachment(): Peer | null {
    return this.#attachment ?? this.#follow?.() ?? null;
  }

  /** Settles once every update sent so far is out (or lost with its connection). */
  get drained(): Promise<void> {
    return this.#sent;
  }

  attach(peer: Peer): void {
    this.#attachment = peer;
  }

  /** false when peer was not the one attached. */
  detach(peer: Peer): boolean {
    if (this.#attachment !== peer) return false;
    this.#attachment = null;
    return true;
  }

  send(update: SessionUpdate): Promise<void> {
    return this.notify("session/update", { sessionId: this.#sessionId, update });
  }

  /** A notification about this session (an update, an extension's), in order with its updates. */
  notify(method: string, params: Record<string, unknown>): Promise<void> {
    const peer = this.attachment;
    if (!peer) return this.#sent;
    const sent = this.#sent.then(() => peer.client.notify(method, params));
    this.#sent = sent.catch((error: unknown) => {
      // A connection that closed took its undelivered notifications with it; the log has what matters.
      if (!peer.closed) this.#logger.warn({ err: error, method }, `${method} not delivered`);
    });
    return this.#sent;
  }
}
