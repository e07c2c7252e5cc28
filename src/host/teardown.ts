// The one way the host ends (stdin closed, SIGTERM, SIGINT): refuse new work, settle every pending prompt as
// cancelled, release every worker in parallel (graceful, then terminated), flush logs, exit.
import type { HostContext } from "./host-context.js";

const DISPOSE_GRACE_MS = 250;

export function createTeardown(host: HostContext, finish: () => Promise<void>): (reason: string) => Promise<void> {
  let running: Promise<void> | null = null;
  return (reason) => {
    running ??= (async () => {
      const started = performance.now();
      host.stopAccepting();
      host.log.info({ reason, sessions: host.sessions.size }, "teardown started");
      await Promise.allSettled([...host.sessions.values()].map((session) => session.close(DISPOSE_GRACE_MS)));
      await host.pool.destroy().catch((error: unknown) => host.log.warn({ err: error }, "pool destroy failed"));
      await finish();
      host.log.info({ reason, ms: Math.round(performance.now() - started) }, "teardown finished");
      host.log.flush();
    })();
    return running;
  };
}
