// GET /healthz: no auth, no session ids; enough for a load balancer or an orchestrator's readiness probe. 200 while
// the host accepts new work and reaches its store; 503 from the first moment of a teardown ("stopping") and while the
// store cannot be reached ("store-unreachable"), so a proxy sends new connections elsewhere.
import type { ListenerHost } from "./listener-host.js";

export interface Health {
  status: "ok" | "stopping" | "store-unreachable";
  /** This host's name in the store's leases and its logs (--host-id). */
  hostId: string;
  sessions: number;
  liveWorkers: number;
}

export function health(host: ListenerHost): { httpStatus: number; body: Health } {
  const status = !host.admission.accepting ? "stopping" : !host.store.reachable ? "store-unreachable" : "ok";
  return {
    httpStatus: status === "ok" ? 200 : 503,
    body: { status, hostId: host.hostId, sessions: host.sessions.size, liveWorkers: host.pool.liveThreads },
  };
}
