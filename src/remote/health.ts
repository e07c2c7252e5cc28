// GET /healthz: no auth, no session ids; enough for a load balancer or an orchestrator's readiness probe.
import type { HostContext } from "../host/host-context.js";

export interface Health {
  status: "ok" | "stopping";
  sessions: number;
  liveWorkers: number;
}

export function healthBody(host: HostContext, accepting: boolean): Health {
  return { status: accepting ? "ok" : "stopping", sessions: host.sessions.size, liveWorkers: host.pool.liveThreads };
}
