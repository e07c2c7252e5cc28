// What the handlers share: configuration, the session table, the worker pool, and the accepting flag.
import { RequestError, type AgentContext } from "@agentclientprotocol/sdk";
import type { ModelConfig, WorkerInit } from "../protocol/port.js";
import type { WorkerPool } from "../pool/worker-pool.js";
import type { HostConfig } from "./config.js";
import type { Logger } from "./logger.js";
import type { SessionDeps, SessionSettings } from "./session.js";
import { SessionTable } from "./session-table.js";

export class HostContext {
  readonly config: HostConfig;
  readonly log: Logger;
  readonly pool: WorkerPool;
  readonly version: string;
  readonly sessions: SessionTable;
  readonly defaultModel: ModelConfig = { provider: "scripted", model: "scripted", retries: 0 };
  readonly sessionDeps: SessionDeps;
  #client: AgentContext | null = null;
  #accepting = true;

  constructor(config: HostConfig, log: Logger, pool: WorkerPool, version: string) {
    this.config = config;
    this.log = log;
    this.pool = pool;
    this.version = version;
    this.sessions = new SessionTable(config["max-sessions"]);
    const host = this;
    this.sessionDeps = {
      pool,
      log,
      cancelGraceMs: config["cancel-grace-ms"],
      get client() {
        return host.client;
      },
      workerInit: (id, settings) => this.#workerInit(id, settings),
    };
  }

  get client(): AgentContext {
    if (!this.#client) throw new Error("no ACP connection yet");
    return this.#client;
  }

  set client(client: AgentContext) {
    this.#client = client;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  stopAccepting(): void {
    this.#accepting = false;
  }

  assertAccepting(): void {
    if (!this.#accepting) throw RequestError.internalError(undefined, "host is shutting down");
  }

  #workerInit(sessionId: string, settings: SessionSettings): WorkerInit {
    const config = this.config;
    return {
      sessionId,
      cwd: settings.cwd,
      mode: settings.mode,
      model: settings.model,
      maxTurnRequests: config["max-turn-requests"],
      allowFaultInjection: config["allow-fault-injection"],
      outputCapBytes: config["output-cap-bytes"],
      maxBackgroundTasks: config["max-background-tasks"],
      sandbox: { bwrapPath: null, network: config["sandbox-network"], allowFullAccess: config["allow-full-access"] },
      spawner: null,
      log: null,
    };
  }
}
