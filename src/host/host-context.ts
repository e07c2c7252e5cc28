// The host's parts, built once and read-only after: configuration, the session table, the worker pool, the store,
// admission and start scheduling. Each consumer asks for the part it needs by an interface of its own (HandlerHost,
// OpsHost, ListenerHost, DelegationHost, OpeningHost), which this satisfies.
import type { HostTracing } from "./traces/host-tracing.js";
import { TenantUsage } from "./ops/tenant-usage.js";
import { dirname } from "node:path";
import { atMemoryLimit, sessionMoved } from "../request-errors.js";
import { StartScheduler } from "../pool/start-scheduler.js";
import { Admission } from "./admission.js";
import { letGo } from "./takeover.js";
import { FollowedSessions } from "./attach/followed-sessions.js";
import { isInside } from "../protocol/paths.js";
import type { ModelConfig, WorkerInit, SettingsFrom } from "../protocol/port.js";
import { ModelGateway } from "../pool/gateway-thread.js";
import { WORKER_RSS_ESTIMATE_BYTES, type WorkerPool } from "../pool/worker-pool.js";
import { hostIdOf, type HostOptions } from "../host-options.js";
import type { Logger } from "../logger.js";
import type { SessionDeps, SessionSettings } from "./session/session-deps.js";
import type { LiveSession } from "./session/session.js";
import { idleCollector, type IdleCollector } from "./ops/idle-collect.js";
import { HostModels } from "./models.js";
import type { SessionStore } from "../store/session-store.js";
import { SessionTable } from "./session/session-table.js";
import type { SpawnerSupervisor } from "../spawner/client/spawner-supervisor.js";
import { WorkerSlots, type MemoryBudget } from "./session/worker-slots.js";
import { ChildSessions } from "./children/child-sessions.js";
import type { LifecycleHooks } from "./session/lifecycle-hooks.js";
import type { WorkspaceRoots } from "./roots/workspace-roots.js";

/** What a session's worker may have on its way to the client before it waits (src/protocol/output-window.ts). */
const OUTPUT_WINDOW_BYTES = 1024 * 1024;

/** Reading the RSS is a /proc read: a burst of leases shares one reading per this many ms. */
const RSS_READ_EVERY_MS = 100;

function rssEvery(ms: number): (fresh?: boolean) => number {
  let at = -Infinity;
  let bytes = 0;
  return (fresh = false) => {
    const now = performance.now();
    if (fresh || now - at >= ms) {
      bytes = process.memoryUsage.rss();
      at = now;
    }
    return bytes;
  };
}

/** How long no prompt must be in flight before the main thread's heap is collected (idle-collect.ts). */
const IDLE_COLLECT_AFTER_MS = 1000;

/** What the host is built from: started before it (the pool, the store, the spawner, tracing). */
export interface HostParts {
  config: HostOptions;
  logger: Logger;
  pool: WorkerPool;
  version: string;
  store: SessionStore;
  spawner: SpawnerSupervisor | null;
  bwrapPath: string | null;
  /** The registry sessions tell what happens to them (tracing listens there from its start). */
  hooks: LifecycleHooks;
  /** The host's traces, when the OTEL_* variables turn them on. */
  tracing: HostTracing | null;
  /** The directories each tenant's sessions may use. */
  roots: WorkspaceRoots;
  /** What no session sees, whatever its workspace: the state dir, and on a confined host its secrets too. */
  hidden: readonly string[];
}

export class HostContext {
  readonly config: HostOptions;
  readonly logger: Logger;
  readonly pool: WorkerPool;
  readonly version: string;
  /** This host's name in the store's leases, /healthz and logs (--host-id). */
  readonly hostId: string;
  readonly sessions: SessionTable;
  /** The models sessions choose among (--model-provider, --model, --models); the first is a new session's. */
  readonly models: HostModels;
  readonly defaultModel: ModelConfig;
  readonly sessionDeps: SessionDeps;
  /** Where sessions live: the state dir, or PostgreSQL shared by a fleet (--store). */
  readonly store: SessionStore;
  /** The budget of live session workers (--max-live-workers). */
  readonly slots: WorkerSlots;
  /** --max-rss-mb: new workers only within it (idle sessions hibernate to make room), new sessions only below it. */
  readonly memory: MemoryBudget;
  /** Makes every OpenAI-compatible request of every session (null when the host has no such model). */
  readonly gateway: ModelGateway | null;
  /** How far child sessions (spawn_agent) may nest and spread (--max-delegation-depth, --max-children). */
  readonly limits: { maxDepth: number; maxChildren: number };
  /** Runs every session command (null if it could not start: commands then fail with a clear error). */
  readonly spawner: SpawnerSupervisor | null;
  readonly bwrapPath: string | null;
  /** Every prompt, load and resume not yet answered: teardown waits for their answers to be written. */
  readonly answersInFlight = new Set<Promise<unknown>>();
  /** Gives back the heap a burst of prompts grew once none is in flight. */
  readonly idleCollector: IdleCollector = idleCollector(IDLE_COLLECT_AFTER_MS);
  /** Whether new work is taken (teardown, memory). */
  readonly admission: Admission;
  /** New sessions' workers, leased one per turn of the event loop and after the session/new being answered. */
  readonly starts = new StartScheduler();
  /** Model requests and tokens by tenant and model (`_host/status`). */
  readonly usage: TenantUsage;
  /** The host's traces, when the OTEL_* variables turn them on. */
  readonly tracing: HostTracing | null;
  /** The directories each tenant's sessions may use (reloaded with the tokens file). */
  readonly roots: WorkspaceRoots;
  readonly #hidden: readonly string[];
  /** Observers here of sessions other hosts of the fleet serve (a shared store's only). */
  readonly followed: FollowedSessions | null;

  constructor({ config, logger, pool, version, store, spawner, bwrapPath, hooks, tracing, roots, hidden }: HostParts) {
    this.roots = roots;
    this.#hidden = hidden;
    this.config = config;
    this.tracing = tracing;
    this.spawner = spawner;
    this.bwrapPath = bwrapPath;
    this.logger = logger;
    this.pool = pool;
    this.version = version;
    this.hostId = hostIdOf(config);
    this.sessions = new SessionTable(config.maxSessions);
    this.models = new HostModels(config);
    this.defaultModel = this.models.default;
    this.store = store;
    this.store.start();
    this.followed = store.feed ? new FollowedSessions(store.feed, logger) : null;
    const limitBytes = config.maxRssMb * 2 ** 20;
    this.memory = {
      limitBytes,
      perWorkerBytes: WORKER_RSS_ESTIMATE_BYTES,
      rssBytes: rssEvery(RSS_READ_EVERY_MS),
      exceeded: (rss) => atMemoryLimit(rss, limitBytes),
    };
    this.slots = new WorkerSlots(config.maxLiveWorkers, this.memory);
    this.admission = new Admission(this.slots, this.sessions);
    this.limits = { maxDepth: config.maxDelegationDepth, maxChildren: config.maxChildren };
    store.onLoss(({ sessionId, reason }) => {
      const session = this.sessions.find(sessionId);
      if (!session) return;
      this.sessions.delete(sessionId);
      void session.lose(sessionMoved(sessionId, reason));
    });
    store.onTakeover((sessionId) =>
      letGo(
        {
          sessions: this.sessions,
          hostId: this.hostId,
          logger,
          cancelGraceMs: config.cancelGraceMs,
          tracing: this.tracing,
          followed: this.followed,
        },
        sessionId,
      ),
    );
    const gateway = ModelGateway.start(this.models.all, (level, msg, data) =>
      logger[level]({ ...data, component: "model-gateway" }, msg),
    );
    this.gateway = gateway;
    gateway?.onRestart(() => {
      for (const session of this.sessions.values()) void session.reconnectGateway();
    });
    spawner?.onRestart(() => {
      for (const session of this.sessions.values()) {
        // The new spawner knows no workspace: sessions without a live worker are not granted again, but are masked.
        spawner.workspace(session.id, session.settings.cwd, this.store.outputDir(session.id));
        void session.regrant();
      }
    });
    this.usage = new TenantUsage(hooks);
    this.sessionDeps = {
      pool,
      logger,
      hooks,
      cancelGraceMs: config.cancelGraceMs,
      turnTimeoutMs: config.turnTimeoutMs,
      workerInit: (id, settings, settingsFrom) => this.#workerInit(id, settings, settingsFrom),
      slots: this.slots,
      store: this.store,
      hibernateAfterMs: config.hibernateAfterMs,
      replayStallMs: config.maxOutputStallMs,
      resolveModel: (model) => this.models.resolve(model.model),
      endSession: (id) => this.#endSessionCommands(id),
      grantFor: (id, cwd) => this.spawner?.grant(id, cwd, this.store.outputDir(id)) ?? null,
      gatewayPort: (id, share) => gateway?.connect(id, share) ?? null,
      delegation: new ChildSessions(this, hooks),
    };
  }

  /**
   * A session joined the table: the spawner learns its workspace, so every other session's next command runs in a
   * sandbox that masks it (the spawner retires those that would not), and each session whose workspace holds the
   * newcomer's gets it hidden from its worker's file tools. Both before the client hears of the session: its worker,
   * whose grant would tell the spawner too, starts only after the answer.
   */
  async hideWorkspaceOf(joined: LiveSession): Promise<void> {
    const cwd = joined.settings.cwd;
    this.spawner?.workspace(joined.id, cwd, this.store.outputDir(joined.id));
    const told: Array<Promise<void>> = [];
    for (const session of this.sessions.values()) {
      if (session !== joined && session.settings.cwd !== cwd && isInside(session.settings.cwd, cwd))
        told.push(session.hide(cwd));
    }
    await Promise.all(told);
  }

  /** Keeps the answer to a prompt, load or resume in `answersInFlight` until it has settled: teardown waits for them. */
  track<T>(answer: Promise<T>): Promise<T> {
    this.answersInFlight.add(answer);
    this.idleCollector.busy();
    const forget = () => {
      this.answersInFlight.delete(answer);
      if (this.answersInFlight.size === 0) this.idleCollector.idle();
    };
    answer.then(forget, forget);
    return answer;
  }

  async #workerInit(sessionId: string, settings: SessionSettings, settingsFrom: SettingsFrom): Promise<WorkerInit> {
    const config = this.config;
    const log = await this.store.workerLog(sessionId, settingsFrom);
    return {
      sessionId,
      cwd: settings.cwd,
      mode: settings.mode,
      model: settings.model,
      maxTurnRequests: config.maxTurnRequests,
      maxTurnToolCalls: config.maxTurnToolCalls,
      compactAt: config.compactAt / 100,
      streamChunks: config.streamChunks,
      allowFaultInjection: config.allowFaultInjection,
      outputCapBytes: config.outputCapBytes,
      maxBackgroundTasks: config.maxBackgroundTasks,
      outputWindowBytes: Math.min(OUTPUT_WINDOW_BYTES, config.maxBufferedBytes),
      nice: config.workerNice,
      sandbox: {
        bwrapPath: this.bwrapPath,
        network: config.sandboxNetwork,
        allowFullAccess: config.allowFullAccess,
        hidden: this.#hiddenFrom(sessionId),
        confined: this.roots.confined,
      },
      // A fresh grant per worker: a session's next worker reaches the same session's background tasks. Full command
      // output goes next to a durable session's log, else to the spawner's own directory.
      spawner: this.spawner?.grant(sessionId, settings.cwd, this.store.outputDir(sessionId)) ?? null,
      mcpServers: settings.mcpServers,
      mcpStartupTimeoutMs: config.mcpStartupTimeoutMs,
      log,
      ...(settings.systemPrompt ? { systemPrompt: settings.systemPrompt } : {}),
      ...(settings.budget ? { budget: settings.budget } : {}),
    };
  }

  /**
   * What the session's file tools must refuse, as bash's sandbox masks it: the state dir, the spawner's directory
   * and other sessions' workspaces. The worker keeps those that really lie inside its workspace (by real path).
   */
  #hiddenFrom(sessionId: string): string[] {
    const hidden = [...this.#hidden, ...this.roots.all()];
    const socketPath = this.spawner?.socketPath;
    if (socketPath) hidden.push(dirname(socketPath));
    for (const session of this.sessions.values()) if (session.id !== sessionId) hidden.push(session.settings.cwd);
    return hidden;
  }

  async #endSessionCommands(sessionId: string): Promise<void> {
    const killed = (await this.spawner?.endSession(sessionId)) ?? 0;
    if (killed > 0) this.logger.info({ sessionId, killed }, "session commands ended");
  }
}
