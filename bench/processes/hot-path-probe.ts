// Where one echo prompt's time goes, hop by hop, each measured alone with the host's own code in a process of its
// own: the main thread ↔ worker message round trip, the worker's turn (agent loop and scripted model, no log),
// the log's appends and the turn-end fdatasync, and the main thread's check and translation of the turn's events.
// The SDK's decode and encode and the stdio round trip are what the floor agent's own p50 is made of.
// Usage: node dist/bench/processes/hot-path-probe.js <samples>  → prints HotPathReport as JSON (medians, µs).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MessageChannel, Worker } from "node:worker_threads";
import { compile } from "zod/mini";
import { createLogger } from "../../src/logger.js";
import { DirStore } from "../../src/store/dir/dir-store.js";
import { toSessionUpdates } from "../../src/host/session/updates.js";
import { emptyState } from "../../src/protocol/log/session-state.js";
import { OutputWindow, outputWindowBuffer } from "../../src/protocol/output-window.js";
import { WorkerEventBatch, type WorkerEvent } from "../../src/protocol/worker-events.js";
import { AgentLoop } from "../../workers/loop/agent-loop.js";
import { EventSink } from "../../workers/event-sink.js";
import { FileJournal } from "../../workers/log/journal-file.js";
import { MemoryJournal } from "../../workers/log/journal.js";
import { ScriptedModel } from "../../workers/models/scripted.js";
import { ToolRegistry } from "../../workers/tools/registry.js";
import { median } from "../support/stats.js";

export interface HotPathReport {
  samples: number;
  /** main → worker → main: one postMessage each way between two threads. */
  portRoundTripUs: number;
  /** The worker's turn for one echo prompt, log kept in memory: from prompt to turn_end posted. */
  workerTurnUs: number;
  /** An echo turn's four log appends. */
  journalAppendUs: number;
  /** The turn end's fdatasync and sidecar rewrite. */
  journalSyncUs: number;
  /** The main thread's check of the turn's event batch and its translation to session/update payloads. */
  mainEventsUs: number;
}

const ECHO_WORKER = `const { parentPort } = require("node:worker_threads"); parentPort.on("message", (m) => parentPort.postMessage(m));`;

async function portRoundTrip(samples: number): Promise<number> {
  const worker = new Worker(ECHO_WORKER, { eval: true });
  const times: number[] = [];
  for (let i = 0; i < samples + 50; i++) {
    const t0 = performance.now();
    await new Promise((resolve) => {
      worker.once("message", resolve);
      worker.postMessage({ type: "prompt", turnId: "t", text: `hello ${i}` });
    });
    if (i >= 50) times.push(performance.now() - t0);
  }
  await worker.terminate();
  return median(times) * 1000;
}

async function workerTurn(samples: number): Promise<number> {
  const channel = new MessageChannel();
  const events = new EventSink(channel.port1, new OutputWindow(outputWindowBuffer()));
  const loop = new AgentLoop({
    model: new ScriptedModel({ allowFaultInjection: false }),
    tools: new ToolRegistry(),
    events,
    journal: new MemoryJournal(
      emptyState({ mode: "auto", model: { provider: "scripted", model: "scripted", retries: 0 } }),
    ),
    mode: "auto",
    cwd: tmpdir(),
    maxTurnRequests: 50,
    maxTurnToolCalls: 200,
    compactAt: 0.8,
    streamChunks: false,
  });
  const times: number[] = [];
  for (let i = 0; i < samples + 50; i++) {
    const turnId = `turn-${i}`;
    const ended = new Promise<void>((resolve) => {
      const onBatch = (batch: WorkerEvent[]) => {
        if (!batch.some((event) => event.type === "turn_end" && event.turnId === turnId)) return;
        channel.port2.off("message", onBatch);
        resolve();
      };
      channel.port2.on("message", onBatch);
    });
    const t0 = performance.now();
    loop.prompt({ type: "prompt", turnId, text: `hello ${i}` });
    await ended;
    if (i >= 50) times.push(performance.now() - t0);
  }
  channel.port1.close();
  return median(times) * 1000;
}

async function journal(samples: number): Promise<{ appendUs: number; syncUs: number }> {
  const stateDir = mkdtempSync(join(tmpdir(), "ash-hot-"));
  try {
    const store = new DirStore(stateDir, createLogger("silent"), { compactBytes: 2 ** 40 });
    const sessionId = await store.create(
      { cwd: stateDir, mode: "auto", model: { provider: "scripted", model: "scripted", retries: 0 } },
      "probe",
      null,
    );
    const paths = store.paths(sessionId);
    const file = FileJournal.open(
      {
        path: paths.log,
        sidecarPath: paths.sidecar,
        compactingPath: paths.compacting,
        restorePointPath: paths.restorePoint,
        compactBytes: 2 ** 40,
        log: () => {},
      },
      sessionId,
    );
    const appends: number[] = [];
    const syncs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const turnId = `turn-${i}`;
      const t0 = performance.now();
      file.append({ type: "turn_start", turnId, at: new Date().toISOString() });
      file.append({ type: "user_message", turnId, text: `hello ${i}` });
      file.append({ type: "assistant_message", turnId, blocks: [`You said: hello ${i}`], toolCalls: [] });
      file.append({ type: "turn_end", turnId, stopReason: "end_turn" });
      const t1 = performance.now();
      file.endTurn();
      syncs.push(performance.now() - t1);
      appends.push(t1 - t0);
    }
    file.close();
    return { appendUs: median(appends) * 1000, syncUs: median(syncs) * 1000 };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function mainEvents(samples: number): number {
  const check = compile(WorkerEventBatch);
  const times: number[] = [];
  for (let i = 0; i < samples + 200; i++) {
    const batch: unknown = [
      { type: "assistant_message", turnId: "t", blocks: [`You said: hello ${i}`] },
      { type: "turn_end", turnId: "t", stopReason: "end_turn" },
    ];
    const t0 = performance.now();
    const parsed = check.safeParse(batch);
    if (parsed.success) for (const event of parsed.data) toSessionUpdates(event, { compaction: false });
    if (i >= 200) times.push(performance.now() - t0);
  }
  return median(times) * 1000;
}

const samples = Number(process.argv[2] ?? 300);
const report: HotPathReport = {
  samples,
  portRoundTripUs: await portRoundTrip(samples),
  workerTurnUs: await workerTurn(samples),
  ...(await journal(samples).then(({ appendUs, syncUs }) => ({ journalAppendUs: appendUs, journalSyncUs: syncUs }))),
  mainEventsUs: mainEvents(samples),
};
process.stdout.write(`${JSON.stringify(report)}\n`);
