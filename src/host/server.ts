// Wires the host: worker pool, session table, ACP app on stdio, and teardown on EOF or signal.
import { WorkerPool } from "../pool/worker-pool.js";
import { createAgentApp } from "./acp-handlers.js";
import type { HostConfig } from "./config.js";
import { HostContext } from "./host-context.js";
import { createLogger, type Logger } from "./logger.js";
import { findBwrap } from "./find-bwrap.js";
import { SpawnerClient } from "./spawner-client.js";
import { stdioStream } from "./stdio-stream.js";
import { createTeardown } from "./teardown.js";

export async function serve(config: HostConfig, version: string): Promise<void> {
  const log = createLogger(config["log-level"]);
  // The spawner process is spawned first, while this process is small (every session command is spawned from it);
  // its boot (and sandbox probe) overlaps the pool's.
  const bwrapPath = findBwrap(config["bwrap-path"] ?? "");
  const spawnerStarting = startSpawner(config, bwrapPath, log);
  const pool = new WorkerPool({
    warmWorkers: config["warm-workers"],
    // --warm-workers 0 turns the standby pool off; it never holds more threads than sessions may have.
    maxWarmWorkers: config["warm-workers"] === 0 ? 0 : Math.min(config["max-live-workers"], Math.max(config["warm-workers"], config["max-warm-workers"])),
    maxLiveWorkers: config["max-live-workers"],
    sessionHeapMb: config["session-heap-mb"],
    ...(config["worker-entry"] ? { entry: config["worker-entry"] } : {}),
  });
  const spawner = await spawnerStarting;
  const host = new HostContext(config, log, pool, version, spawner, bwrapPath);
  const stdio = stdioStream();
  const connection = createAgentApp(host).connect(stdio.stream);
  host.client = connection.client;

  const teardown = createTeardown(host, {
    drained: stdio.drained,
    finish: async () => {
      await spawner?.shutdown();
    },
  });
  const end = (reason: string) => {
    void teardown(reason).finally(() => process.exit(0));
  };
  process.once("SIGTERM", () => end("SIGTERM"));
  process.once("SIGINT", () => end("SIGINT"));
  void stdio.inputEnded.then(() => end("stdin closed"));
  // The connection closes on its own only when stdout breaks: nobody is left to answer.
  void connection.closed.then(() => end("connection closed"));
  log.info({ version }, "acp-session-host serving on stdio");
}

async function startSpawner(config: HostConfig, bwrapPath: string | null, log: Logger): Promise<SpawnerClient | null> {
  try {
    const spawner = await SpawnerClient.start(
      {
        bwrapPath,
        network: config["sandbox-network"],
        allowFullAccess: config["allow-full-access"],
        maxBackgroundTasks: config["max-background-tasks"],
        // Every session's log lives here: no sandboxed command sees it.
        hidden: [config["state-dir"]],
      },
      log,
    );
    if (spawner.sandbox.ok) log.info({ spawnerPid: spawner.pid, bwrapPath }, "spawner ready; sandbox works");
    else log.warn({ spawnerPid: spawner.pid, detail: spawner.sandbox.detail }, "spawner ready; sandbox unavailable: sandboxed commands will fail closed");
    return spawner;
  } catch (error) {
    log.error({ err: error }, "spawner could not start: session commands will fail");
    return null;
  }
}
