// What of the host the ACP methods use (every handler of a connection, and the connection that serves them): the
// session table and how sessions open, the store, the models, admission, tracing, usage, and the answers teardown
// waits for.
import type { HostOptions } from "../../host-options.js";
import type { Logger } from "../../logger.js";
import type { ModelConfig } from "../../protocol/port.js";
import type { Admission } from "../admission.js";
import type { HostModels } from "../models.js";
import type { TenantUsage } from "../ops/tenant-usage.js";
import type { OpeningHost } from "../session/open-session.js";
import type { HostTracing } from "../traces/host-tracing.js";
import type { FollowedSessions } from "../attach/followed-sessions.js";
import type { WorkspaceRoots } from "../roots/workspace-roots.js";
import type { ModelGateway } from "../../pool/gateway-thread.js";

export interface HandlerHost extends OpeningHost {
  readonly config: HostOptions;
  /** This host's name (--host-id). */
  readonly hostId: string;
  readonly logger: Logger;
  readonly admission: Admission;
  readonly models: HostModels;
  readonly defaultModel: ModelConfig;
  readonly tracing: HostTracing | null;
  /** The directories each tenant's sessions may use. */
  readonly roots: WorkspaceRoots;
  /** Model requests and tokens by tenant and model (`_host/status`). */
  readonly usage: TenantUsage;
  /** The model gateway (`_host/status` shows its provider endpoints); null without a real model. */
  readonly gateway: ModelGateway | null;
  /** Observers here of sessions other hosts of the fleet serve (a shared store's only). */
  readonly followed: FollowedSessions | null;
  /** Keeps the answer in the set teardown waits for until it has settled. */
  track<T>(answer: Promise<T>): Promise<T>;
}
