// Which live session a request from a peer may touch. Another tenant's session is answered exactly as one that does
// not exist; a session of the peer's tenant attached to another connection is refused until that one lets it go. A
// client attached as a controller may do what the owning connection may; an observer may change nothing.
import type { Peer } from "../connection/peer.js";
import type { LogHeader } from "../../protocol/log/session-log.js";
import type { SessionStore } from "../../store/session-store.js";
import type { LiveSession } from "../session/session.js";
import { hostError, unknownSession } from "../../request-errors.js";
import type { SessionTable } from "../session/session-table.js";
import type { FollowedSessions } from "../attach/followed-sessions.js";

/** The live session if this peer may see it (any attachment). */
export function findVisible(sessions: SessionTable, peer: Peer, id: string): LiveSession | undefined {
  const session = sessions.find(id);
  return session && peer.sees(session.tenant) ? session : undefined;
}

/** The live session attached to this peer, or the error that says why not. */
export function attachedSession(sessions: SessionTable, peer: Peer, id: string): LiveSession {
  const session = findVisible(sessions, peer, id);
  if (!session) throw unknownSession(id);
  assertAttachable(session, peer);
  return session;
}

/**
 * Close, delete, archive and retitle change a session for everyone attached to it: a connection attached to it only
 * as an observer (here, or following it here while another host of the fleet serves it) may do none of them,
 * whoever else holds it or none. The operator may.
 */
export function assertNotObserver(
  sessions: SessionTable,
  followed: Pick<FollowedSessions, "observes"> | null,
  peer: Peer,
  sessionId: string,
): void {
  if (peer.operator) return;
  const live = findVisible(sessions, peer, sessionId);
  const observer = live ? live.roleOf(peer) === "observer" : (followed?.observes(peer, sessionId) ?? false);
  if (observer) throw observerOnly(sessionId);
}

function observerOnly(sessionId: string) {
  return hostError(
    "OBSERVER_ONLY",
    `this connection is attached to session ${sessionId} as an observer: it may read its updates, not change it (attach as a controller)`,
    { sessionId },
  );
}

/** Refuses a request for a session that another connection holds, or that no connection holds (detached). */
export function assertAttachable(session: LiveSession, peer: Peer): void {
  const role = session.roleOf(peer);
  if (role === "owner" || role === "controller") return;
  if (role === "observer") throw observerOnly(session.id);
  const holder = session.attachment;
  if (holder && !holder.closed) {
    throw hostError(
      "NOT_ATTACHED",
      `session ${session.id} is attached to another connection: session/load or session/resume it here once its prompt has ended`,
      { sessionId: session.id },
    );
  }
  throw hostError(
    "NOT_ATTACHED",
    `session ${session.id} is not attached to this connection (its connection closed): session/resume or session/load it first`,
    { sessionId: session.id },
  );
}

/**
 * A stored session's header, if this peer may see it: another tenant's is answered as an unknown id is (both read the
 * header, and fail alike).
 */
export async function visibleStoredHeader(
  store: Pick<SessionStore, "readHeader" | "unknownSession">,
  peer: Peer,
  sessionId: string,
): Promise<LogHeader> {
  const header = await store.readHeader(sessionId);
  if (!peer.sees(header.tenant ?? null)) throw store.unknownSession(sessionId);
  return header;
}
