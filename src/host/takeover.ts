// Another host asks for a session this host has (a shared store): the same rule as between two connections of this
// host. Refused while a prompt is in flight on an open connection, or while a client is attached here as its
// controller; otherwise, once idle, closed here (its records committed, its lease given up) so the asker takes it.
// The clients attached here as observers follow it on from the store.
import type { Logger } from "../logger.js";
import type { SessionTable } from "./session/session-table.js";
import type { HostTracing } from "./traces/host-tracing.js";
import type { FollowedSessions } from "./attach/followed-sessions.js";

/**
 * Lets the session go for another host; resolves with why not (said to the asking host), or null once it is closed
 * here.
 */
export async function letGo(
  host: {
    sessions: SessionTable;
    hostId: string;
    logger: Logger;
    cancelGraceMs: number;
    tracing: HostTracing | null;
    followed: FollowedSessions | null;
  },
  sessionId: string,
): Promise<string | null> {
  const session = host.sessions.find(sessionId);
  if (!session) return `session ${sessionId} is being opened on host ${host.hostId}: try again once it is open`;
  if (session.busy && session.attachment && !session.attachment.closed) {
    return `a prompt is in flight for session ${sessionId} on host ${host.hostId}: load or resume it here once the prompt has ended`;
  }
  if (session.controlledByAttached) {
    return `a client is attached to session ${sessionId} as its controller on host ${host.hostId}: attach there, or here once it has detached`;
  }
  const span = host.tracing?.work("takeover_session", {
    "gen_ai.conversation.id": sessionId,
    "acp_host.host.id": host.hostId,
  });
  await session.whenIdle();
  if (host.sessions.find(sessionId) !== session) {
    span?.end();
    return null;
  }
  host.sessions.delete(sessionId);
  const observers = session.releaseObservers();
  await session.close(host.cancelGraceMs);
  for (const observer of observers) host.followed?.adopt(sessionId, observer);
  span?.end();
  host.logger.info({ sessionId }, "session let go: another host takes it over");
  return null;
}
