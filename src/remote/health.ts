// GET /healthz (liveness) and GET /readyz (readiness): no auth, no session ids. /healthz answers 200 while the host
// accepts new work and reaches its store; 503 from the first moment of a teardown ("stopping") and while the store
// cannot be reached ("store-unreachable"), so a proxy sends new connections elsewhere. /readyz answers 200 once, on
// top of that, the standby pool holds the threads the last bursts of session/new needed ("warming" until then), so a
// deploy or a fleet's proxy can wait for a host that will answer a burst without starting threads during it.
import type { ListenerHost } from "./listener-host.js";

export interface Health {
  status: "ok" | "warming" | "stopping" | "store-unreachable";
  /** This host's name in the store's leases and its logs (--host-id). */
  hostId: string;
  sessions: number;
  liveWorkers: number;
}

export interface Readiness extends Health {
  /** Started worker threads waiting for a session, and how many the pool works towards. */
  standby: number;
  wantedStandby: number;
}

export function readiness(host: ListenerHost): { httpStatus: number; body: Readiness } {
  const { body } = health(host);
  const warming = body.status === "ok" && !host.pool.ready;
  return {
    httpStatus: body.status === "ok" && !warming ? 200 : 503,
    body: {
      ...body,
      ...(warming ? { status: "warming" } : {}),
      standby: host.pool.standby,
      wantedStandby: host.pool.wantedStandby,
    },
  };
}

export function health(host: ListenerHost): { httpStatus: number; body: Health } {
  const status = !host.admission.accepting ? "stopping" : !host.store.reachable ? "store-unreachable" : "ok";
  return {
    httpStatus: status === "ok" ? 200 : 503,
    body: { status, hostId: host.hostId, sessions: host.sessions.size, liveWorkers: host.pool.liveThreads },
  };
}
