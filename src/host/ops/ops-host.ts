// What of the host its operations use: the figures (_host/stats, _host/status, /metrics), the watchdog and teardown.
import type { FollowedSessions } from "../attach/followed-sessions.js";
import type { HostOptions } from "../../host-options.js";
import type { Logger } from "../../logger.js";
import type { ModelGateway } from "../../pool/gateway-thread.js";
import type { WorkerPool } from "../../pool/worker-pool.js";
import type { SpawnerSupervisor } from "../../spawner/client/spawner-supervisor.js";
import type { SessionStore } from "../../store/session-store.js";
import type { Admission } from "../admission.js";
import type { SessionDeps } from "../session/session-deps.js";
import type { SessionTable } from "../session/session-table.js";
import type { HostTracing } from "../traces/host-tracing.js";
import type { IdleCollector } from "./idle-collect.js";
import type { TenantUsage } from "./tenant-usage.js";

export interface OpsHost {
  readonly config: HostOptions;
  readonly logger: Logger;
  readonly hostId: string;
  readonly sessions: SessionTable;
  readonly store: SessionStore;
  readonly pool: WorkerPool;
  readonly admission: Admission;
  readonly sessionDeps: Pick<SessionDeps, "hooks">;
  readonly spawner: SpawnerSupervisor | null;
  readonly gateway: ModelGateway | null;
  readonly tracing: HostTracing | null;
  readonly idleCollector: IdleCollector;
  readonly usage: TenantUsage;
  /** Every prompt, load and resume not yet answered. */
  readonly answersInFlight: ReadonlySet<Promise<unknown>>;
  /** Observers here of sessions other hosts serve: they stop following at teardown. */
  readonly followed: Pick<FollowedSessions, "stopAll"> | null;
}
