// Wires the host: worker pool, session table, ACP app on stdio, and teardown on EOF or signal.
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { WorkerPool } from "../pool/worker-pool.js";
import { createAgentApp } from "./acp-handlers.js";
import type { HostConfig } from "./config.js";
import { HostContext } from "./host-context.js";
import { createLogger, type Logger } from "./logger.js";
import { findBwrap } from "./find-bwrap.js";
import { SpawnerClient } from "./spawner-client.js";
import { createTeardown } from "./teardown.js";

export async function serve(config: HostConfig, version: string): Promise<void> {
  const log = createLogger(config["log-level"]);
  // The spawner process is spawned first, while this process is small (every session command is spawned from it);
  // its boot (and sandbox probe) overlaps the pool's.
  const bwrapPath = findBwrap(config["bwrap-path"] ?? "");
  const spawnerStarting = startSpawner(config, bwrapPath, log);
  const pool = new WorkerPool({
    warmWorkers: config["warm-workers"],
    maxLiveWorkers: config["max-live-workers"],
    sessionHeapMb: config["session-heap-mb"],
  });
  const spawner = await spawnerStarting;
  const host = new HostContext(config, log, pool, version, spawner, bwrapPath);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = createAgentApp(host).connect(stream);
  host.client = connection.client;

  const teardown = createTeardown(host, async () => {
    await spawner?.shutdown();
  });
  const end = (reason: string) => {
    void teardown(reason)
      .then(flushStdout)
      .finally(() => process.exit(0));
  };
  process.once("SIGTERM", () => end("SIGTERM"));
  process.once("SIGINT", () => end("SIGINT"));
  void connection.closed.then(() => end("stdin closed"));
  log.info({ version, pid: process.pid }, "acp-session-host serving on stdio");
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
    if (spawner.sandbox.ok) log.info({ pid: spawner.pid, bwrapPath }, "spawner ready; sandbox works");
    else log.warn({ pid: spawner.pid, detail: spawner.sandbox.detail }, "spawner ready; sandbox unavailable: sandboxed commands will fail closed");
    return spawner;
  } catch (error) {
    log.error({ err: error }, "spawner could not start: session commands will fail");
    return null;
  }
}

/** Resolves once every frame written so far (the cancelled prompts' responses among them) has left stdout. */
function flushStdout(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => process.stdout.write("", () => resolve()));
  });
}
