// Every --worker-stall-ms / 2, each idle session's worker is pinged (one message on its events port); a worker that
// has not answered the previous ping within --worker-stall-ms is ended (LiveSession.checkAlive). One timer for the
// whole host, nothing on the prompt path.
import type { SessionTable } from "../session/session-table.js";

export function startWorkerWatchdog(sessions: SessionTable, stallMs: number): () => void {
  if (stallMs === 0) return () => {};
  const timer = setInterval(
    () => {
      const now = performance.now();
      for (const session of sessions.values()) session.checkAlive(stallMs, now);
    },
    Math.max(10, Math.floor(stallMs / 2)),
  );
  timer.unref();
  return () => clearInterval(timer);
}
