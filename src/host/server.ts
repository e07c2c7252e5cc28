// Wires the host: worker pool, session table, one ACP connection on stdio or many on the remote listener, and
// teardown on EOF (stdio) or signal.
import type { Server } from "node:http";
import { WorkerPool } from "../pool/worker-pool.js";
import type { ListenAddress } from "../remote/listen-address.js";
import { RemoteListener } from "../remote/listener.js";
import { remoteOptions } from "../remote/remote-options.js";
import { tenantWeights } from "../remote/tokens.js";
import type { HostOptions } from "../host-options.js";
import { connectPeer } from "./connection/connect-peer.js";
import { HostContext } from "./host-context.js";
import { LifecycleHooks } from "./session/lifecycle-hooks.js";
import { HostStatsMonitor } from "./ops/host-stats-monitor.js";
import { createLogger, type Logger } from "../logger.js";
import { routeConsole } from "./connection/sdk-console.js";
import { HostMetrics, serveMetrics } from "./ops/metrics.js";
import { findBwrap } from "../spawner/client/find-bwrap.js";
import { Peer } from "./connection/peer.js";
import { SpawnerSupervisor } from "../spawner/client/spawner-supervisor.js";
import { stdioStream } from "./connection/stdio-stream.js";
import { createTeardown } from "./ops/teardown.js";
import { openStore } from "../store/open-store.js";
import { startWorkerWatchdog } from "./ops/worker-watchdog.js";
import { startTracing } from "./traces/start-tracing.js";
import { fixMallocThreshold, MMAP_THRESHOLD_BYTES } from "./ops/malloc-threshold.js";
import { loadWorkspaceRoots, type WorkspaceRoots } from "./roots/workspace-roots.js";
import { confinedHidden } from "./roots/confined-hidden.js";

export async function serve(config: HostOptions, version: string): Promise<void> {
  const logger = createLogger(config.logLevel);
  // stderr carries the host's JSON only: the SDK's console lines are logged like the host's own warnings.
  routeConsole(logger);
  // Before any session thread starts: the blocks they take are the ones it is for.
  if (fixMallocThreshold()) logger.debug({ bytes: MMAP_THRESHOLD_BYTES }, "malloc's mmap threshold fixed");
  const remote = await remoteOptions(config);
  // Before anything starts: a tenant open to every directory, or a root that is not there, ends the host (exit 2).
  const roots = await loadWorkspaceRoots(config.workspaceRoot, remote?.tokens ?? null);
  const hidden = [config.stateDir, ...(await confinedHidden(roots, config.tokensFile))];
  // The store first: a store that cannot be used ends the host before anything else has started (one line, exit 2).
  const store = await openStore(config, logger);
  // The spawner process is spawned next, while this process is small (every session command is spawned from it);
  // its boot (and sandbox probe) overlaps the pool's.
  const bwrapPath = findBwrap(config.bwrapPath ?? "");
  const spawnerStarting = startSpawner(config, bwrapPath, logger, roots, hidden);
  const pool = new WorkerPool({
    warmWorkers: config.warmWorkers,
    // --warm-workers 0 turns the standby pool off; it never holds more threads than sessions may have.
    maxWarmWorkers:
      config.warmWorkers === 0
        ? 0
        : Math.min(config.maxLiveWorkers, Math.max(config.warmWorkers, config.maxWarmWorkers)),
    burstMemoryMs: config.burstMemoryMs,
    // A started thread counts against --max-rss-mb: the standby pool keeps to its share of it.
    warmBudgetBytes: (config.warmBudgetMb ?? Math.floor(config.maxRssMb / 4)) * 2 ** 20,
    maxLiveWorkers: config.maxLiveWorkers,
    sessionHeapMb: config.sessionHeapMb,
    ...(config.workerEntry ? { entry: config.workerEntry } : {}),
    onStrayError: (error) => logger.warn({ err: error }, "a session worker failed after the host had ended it"),
  });
  const spawner = await spawnerStarting;
  const hooks = new LifecycleHooks(logger);
  const tracing = await startTracing({ version, content: config.traceContent, logger, hooks });
  const host = new HostContext({
    config,
    logger,
    pool,
    version,
    store,
    spawner,
    bwrapPath,
    hooks,
    tracing,
    roots,
    hidden,
  });
  const stats = new HostStatsMonitor(host);
  const metrics = config.metricsListen ? await startMetrics(host, config.metricsListen) : null;
  const stopWatchdog = startWorkerWatchdog(host.sessions, config.workerStallMs);

  let listener: RemoteListener | null = null;
  let drained = (): Promise<void> => Promise.resolve();
  let flushOutput = (): void => {};
  const teardown = createTeardown(host, {
    drained: () => drained(),
    endCommands: async () => {
      await spawner?.shutdown();
    },
    finish: async () => {
      stopWatchdog();
      metrics?.close();
      await listener?.close();
    },
  });
  const end = (reason: string) => {
    void teardown(reason).finally(() => {
      // A frame written in this last turn of the event loop (a late answer) still leaves before the exit.
      flushOutput();
      process.exit(0);
    });
  };
  process.once("SIGTERM", () => end("SIGTERM"));
  process.once("SIGINT", () => end("SIGINT"));
  // A fault nothing caught still ends the host the one way: its sandboxes must not outlive it.
  process.on("uncaughtException", (error) => {
    logger.fatal({ err: error }, "host failed: ending");
    void teardown("uncaught fault").finally(() => {
      flushOutput();
      process.exit(1);
    });
  });

  if (remote) {
    try {
      listener = await RemoteListener.start(host, stats, remote.options, remote.tokens);
      if (remote.tokens) host.gateway?.weigh(tenantWeights(remote.tokens));
    } catch (error) {
      await teardown("listener failed to start");
      throw error;
    }
    const started = listener;
    process.on("SIGHUP", () => void started.reloadTokens());
    const dashboard = listener.dashboardUrl;
    logger.info(
      { version, url: listener.url, ...(dashboard ? { dashboard } : {}), tenants: remote.tokens !== null },
      "acp-session-host listening",
    );
    return;
  }
  const stdio = stdioStream();
  drained = stdio.drained;
  flushOutput = stdio.flushNow;
  const connection = connectPeer(host, new Peer("stdio", null), stats, stdio.stream);
  void stdio.inputEnded.then(() => end("stdin closed"));
  // The connection closes on its own only when stdout breaks: nobody is left to answer.
  void connection.closed.then(() => end("connection closed"));
  logger.info({ version }, "acp-session-host serving on stdio");
}

async function startMetrics(host: HostContext, address: ListenAddress): Promise<Server> {
  const metrics = new HostMetrics(host);
  const { url, server } = await serveMetrics(metrics, address);
  host.logger.info({ url }, "metrics listening");
  return server;
}

async function startSpawner(
  config: HostOptions,
  bwrapPath: string | null,
  logger: Logger,
  roots: WorkspaceRoots,
  hidden: string[],
): Promise<SpawnerSupervisor | null> {
  try {
    const spawner = await SpawnerSupervisor.start(
      {
        bwrapPath,
        network: config.sandboxNetwork,
        allowFullAccess: config.allowFullAccess,
        maxBackgroundTasks: config.maxBackgroundTasks,
        // Every session's log lives in the state dir: no sandboxed command sees it.
        hidden,
        confined: roots.confined,
        ...(config.runtimeDir ? { runtimeParent: config.runtimeDir } : {}),
        logLevel: config.logLevel,
      },
      logger,
    );
    if (spawner.sandbox.ok)
      logger.info({ spawnerPid: spawner.pid, bwrapPath, confined: roots.confined }, "spawner ready; sandbox works");
    else
      logger.warn(
        { spawnerPid: spawner.pid, detail: spawner.sandbox.detail },
        "spawner ready; sandbox unavailable: sandboxed commands will fail closed",
      );
    return spawner;
  } catch (error) {
    logger.error({ err: error }, "spawner could not start: session commands will fail");
    return null;
  }
}
