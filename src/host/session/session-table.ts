// The routing table: session id → record, and parent → the children open here. Ids are random UUIDs and never handed
// out twice.
import { hostError, unknownSession } from "../../request-errors.js";
import type { LiveSession } from "./session.js";

export class SessionTable {
  readonly #sessions = new Map<string, LiveSession>();
  readonly #children = new Map<string, Set<LiveSession>>();
  readonly #maxSessions: number;

  constructor(maxSessions: number) {
    this.#maxSessions = maxSessions;
  }

  get size(): number {
    return this.#sessions.size;
  }

  values(): IterableIterator<LiveSession> {
    return this.#sessions.values();
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** The live session with this id, or a -32602 "unknown session" error. */
  get(id: string): LiveSession {
    const session = this.#sessions.get(id);
    if (!session) throw unknownSession(id);
    return session;
  }

  find(id: string): LiveSession | undefined {
    return this.#sessions.get(id);
  }

  assertCapacity(): void {
    if (this.#sessions.size >= this.#maxSessions) {
      throw hostError("AT_CAPACITY", `host at capacity: ${this.#maxSessions} sessions`, {
        maxSessions: this.#maxSessions,
      });
    }
  }

  add(session: LiveSession): void {
    this.#sessions.set(session.id, session);
    const parent = session.lineage.parentId;
    if (parent === null) return;
    let children = this.#children.get(parent);
    if (!children) this.#children.set(parent, (children = new Set()));
    children.add(session);
  }

  delete(id: string): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    const parent = session.lineage.parentId;
    const siblings = parent === null ? undefined : this.#children.get(parent);
    if (!siblings) return;
    siblings.delete(session);
    if (siblings.size === 0) this.#children.delete(parent!);
  }

  /** The children of a session that are open in this host. */
  childrenOf(parentId: string): LiveSession[] {
    return [...(this.#children.get(parentId) ?? [])];
  }
}

/** The answer to a request for a live session that does not exist (or, for a peer, is another tenant's). */
