// Wires the host: worker pool, session table, one ACP connection on stdio or many on the remote listener, and
// teardown on EOF (stdio) or signal.
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { WorkerPool } from "../pool/worker-pool.js";
import { RemoteListener } from "../remote/listener.js";
import { remoteOptions } from "../remote/remote-options.js";
import type { HostConfig } from "./config.js";
import { connectPeer } from "./connect-peer.js";
import { HostContext } from "./host-context.js";
import { HostStatsMonitor } from "./host-stats.js";
import { createLogger, type Logger } from "./logger.js";
import { findBwrap } from "./find-bwrap.js";
import { Peer } from "./peer.js";
import { SpawnerClient } from "./spawner-client.js";
import { createTeardown } from "./teardown.js";

export async function serve(config: HostConfig, version: string): Promise<void> {
  const log = createLogger(config["log-level"]);
  const remote = await remoteOptions(config);
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
  const stats = new HostStatsMonitor(host);

  let listener: RemoteListener | null = null;
  const teardown = createTeardown(host, async () => {
    await listener?.close();
    await spawner?.shutdown();
  });
  const end = (reason: string) => {
    void teardown(reason)
      .then(flushStdout)
      .finally(() => process.exit(0));
  };
  process.once("SIGTERM", () => end("SIGTERM"));
  process.once("SIGINT", () => end("SIGINT"));

  if (remote) {
    try {
      listener = await RemoteListener.start(host, stats, remote.options, remote.tokens);
    } catch (error) {
      await teardown("listener failed to start");
      throw error;
    }
    const started = listener;
    process.on("SIGHUP", () => void started.reloadTokens());
    log.info({ version, pid: process.pid, url: listener.url, tenants: remote.tokens !== null }, "acp-session-host listening");
    return;
  }
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = connectPeer(host, new Peer("stdio", null), stats, stream);
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
