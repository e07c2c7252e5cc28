// Build time only (`session-loader.js --write-code-cache`): one session driven through the worker's own code as the
// main thread would drive it (start, open, an echo prompt, dispose), so the V8 code cache made afterwards holds what
// a session's start and first turn compile, not only the bundle's top level.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel } from "node:worker_threads";
import * as Comlink from "comlink";
import type { SessionWorkerApi } from "../src/protocol/session-worker-api.js";
import type { WorkerEvent } from "../src/protocol/worker-events.js";
import { outputWindowBuffer } from "../src/protocol/output-window.js";
import { portEndpoint } from "../src/protocol/port-endpoint.js";
import { scriptedLogHeader, scriptedSessionInit } from "./scripted-init.js";
import runSession from "./session-entry.js";

export async function warmUp(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "ash-warm-up-"));
  const commands = new MessageChannel();
  const events = new MessageChannel();
  try {
    const sessionId = crypto.randomUUID();
    const header = scriptedLogHeader(sessionId, dir, "warm-up");
    const log = join(dir, `${sessionId}.jsonl`);
    writeFileSync(log, `${JSON.stringify(header)}\n`);
    void runSession({ commands: commands.port2, events: events.port2, outputWindow: outputWindowBuffer() });
    const api = Comlink.wrap<SessionWorkerApi>(portEndpoint(commands.port1));
    await api.start(
      scriptedSessionInit(sessionId, dir, {
        kind: "dir",
        path: log,
        sidecarPath: join(dir, `${sessionId}.meta.json`),
        outputDir: join(dir, "out"),
        settingsFrom: "host",
        compactingPath: `${log}.compact`,
        restorePointPath: `${log}.restore`,
        compactBytes: 8 * 1024 * 1024,
      }),
    );
    await api.open();
    const ended = new Promise<void>((resolve) =>
      events.port1.on(
        "message",
        (batch: WorkerEvent[]) => void (batch.some((event) => event.type === "turn_end") && resolve()),
      ),
    );
    events.port1.postMessage({ type: "prompt", turnId: "warm-up", text: "hello" });
    await ended;
    await api.dispose();
  } finally {
    commands.port1.close();
    events.port1.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
