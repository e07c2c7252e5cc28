// Wires the host: worker pool, session table, ACP app on stdio, and teardown on EOF or signal.
import { Readable, Writable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { WorkerPool } from "../pool/worker-pool.js";
import { createAgentApp } from "./acp-handlers.js";
import type { HostConfig } from "./config.js";
import { HostContext } from "./host-context.js";
import { createLogger } from "./logger.js";
import { createTeardown } from "./teardown.js";

export async function serve(config: HostConfig, version: string): Promise<void> {
  const log = createLogger(config["log-level"]);
  const pool = new WorkerPool({
    warmWorkers: config["warm-workers"],
    maxLiveWorkers: config["max-live-workers"],
    sessionHeapMb: config["session-heap-mb"],
  });
  const host = new HostContext(config, log, pool, version);
  const stream = ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = createAgentApp(host).connect(stream);
  host.client = connection.client;

  const teardown = createTeardown(host, async () => {});
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

/** Resolves once every frame written so far (the cancelled prompts' responses among them) has left stdout. */
function flushStdout(): Promise<void> {
  return new Promise((resolve) => {
    setImmediate(() => process.stdout.write("", () => resolve()));
  });
}
