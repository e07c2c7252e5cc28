// What of the host the remote listener uses: what its connections' handlers use, and what /healthz reports.
import type { HandlerHost } from "../host/handlers/handler-host.js";
import type { OpsHost } from "../host/ops/ops-host.js";

export type ListenerHost = HandlerHost & Pick<OpsHost, "hostId" | "pool">;
