// A session whose connection went away stays open (its turn finishes, it hibernates) so that a client can take it
// over; one that nobody takes over within --detached-close-ms is closed: it leaves the session table and its lock,
// and its log stays for a later session/resume or session/load. Without this, a server whose clients come and go
// would hold every session it ever served.
import type { HostContext } from "../host-context.js";
import type { SessionRecord } from "../session/session.js";

export function closeIfStillDetached(host: HostContext, session: SessionRecord): void {
  const ms = host.config.detachedCloseMs;
  if (ms === 0) return;
  const timer = setTimeout(async () => {
    // A turn that outlived its connection finishes first; its end is in the log.
    await session.whenIdle();
    if (session.attachment !== null || host.sessions.find(session.id) !== session || !host.admission.accepting) return;
    host.sessions.delete(session.id);
    await session.close(host.config.cancelGraceMs);
    host.log.info(
      { sessionId: session.id, detachedCloseMs: ms },
      "detached session closed: no connection took it over; resume or load it to open it again",
    );
  }, ms);
  timer.unref();
}
