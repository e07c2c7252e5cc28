// A session whose connection went away stays open (its turn finishes, it hibernates) so that a client can take it
// over; one that nobody takes over within --detached-close-ms is closed: it leaves the session table and its lock,
// and its log stays for a later session/resume or session/load. Without this, a server whose clients come and go
// would hold every session it ever served.
import type { HostOptions } from "../../host-options.js";
import type { Logger } from "../../logger.js";
import type { Admission } from "../admission.js";
import type { LiveSession } from "../session/session.js";
import type { SessionTable } from "../session/session-table.js";

/** What of the host closing a detached session uses. */
export interface DetachedCloseHost {
  readonly config: Pick<HostOptions, "detachedCloseMs" | "cancelGraceMs">;
  readonly logger: Pick<Logger, "info">;
  readonly admission: Pick<Admission, "accepting">;
  readonly sessions: Pick<SessionTable, "find" | "delete">;
}

export type DetachedSession = Pick<LiveSession, "id" | "attended" | "whenIdle" | "close">;

export function closeIfStillDetached(host: DetachedCloseHost, session: DetachedSession): void {
  const ms = host.config.detachedCloseMs;
  if (ms === 0) return;
  const timer = setTimeout(async () => {
    // A turn that outlived its connection finishes first; its end is in the log.
    await session.whenIdle();
    if (session.attended || host.sessions.find(session.id) !== session || !host.admission.accepting) return;
    host.sessions.delete(session.id);
    await session.close(host.config.cancelGraceMs);
    host.logger.info(
      { sessionId: session.id, detachedCloseMs: ms },
      "detached session closed: no connection took it over; resume or load it to open it again",
    );
  }, ms);
  timer.unref();
}
