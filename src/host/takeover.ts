// Another host asks for a session this host has (a shared store): the same rule as between two connections of this
// host. Refused while a prompt is in flight on an open connection; otherwise, once idle, closed here (its records
// committed, its lease given up) so the asker takes it.
import type { Logger } from "../logger.js";
import type { SessionTable } from "./session/session-table.js";
import type { HostTracing } from "./traces/host-tracing.js";

/**
 * Lets the session go for another host; resolves with why not (said to the asking host), or null once it is closed
 * here.
 */
export async function letGo(
  host: { sessions: SessionTable; hostId: string; logger: Logger; cancelGraceMs: number; tracing: HostTracing | null },
  sessionId: string,
): Promise<string | null> {
  const session = host.sessions.find(sessionId);
  if (!session) return `session ${sessionId} is being opened on host ${host.hostId}: try again once it is open`;
  if (session.busy && session.attachment && !session.attachment.closed) {
    return `a prompt is in flight for session ${sessionId} on host ${host.hostId}: load or resume it here once the prompt has ended`;
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
  await session.close(host.cancelGraceMs);
  span?.end();
  host.logger.info({ sessionId }, "session let go: another host takes it over");
  return null;
}
