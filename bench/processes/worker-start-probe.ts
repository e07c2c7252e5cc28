// One process of the worker-start scenario: starts workers one after another and reports CPU and wall time per
// worker, then keeps `live` of them alive and idle and reports the process's RSS per worker. "bare" is the floor:
// `new Worker()` that posts one message. "session" is the host's own path: a piscina lease of the session worker,
// bound with start(init) to a session whose log exists, until open() has answered.
// Usage: node dist/bench/processes/worker-start-probe.js bare|session <starts> <live>
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/logger.js";
import { DirStore } from "../../src/store/dir/dir-store.js";
import { WorkerPool } from "../../src/pool/worker-pool.js";
import type { OpenAck } from "../../src/protocol/worker-events.js";
import { scriptedSessionInit } from "../../workers/scripted-init.js";
import { startBareThread } from "../support/bare-thread.js";
import { rssBytes } from "../support/proc.js";

export interface ProbeReport {
  variant: "bare" | "session";
  starts: number;
  cpuMsPerStart: number;
  wallMsPerStart: number;
  live: number;
  rssBaselineMiB: number;
  rssPerLiveMiB: number;
}

interface Started {
  stop(): Promise<unknown>;
}

async function startBare(): Promise<Started> {
  const worker = await startBareThread();
  return { stop: () => worker.terminate() };
}

function sessionStarter(): { start(): Promise<Started>; close(): Promise<void> } {
  const stateDir = mkdtempSync(join(tmpdir(), "ash-probe-"));
  const store = new DirStore(stateDir, createLogger("silent"), { compactBytes: 8 * 1024 * 1024 });
  const pool = new WorkerPool({ warmWorkers: 0, maxLiveWorkers: 4096, sessionHeapMb: 512 });
  const settings = {
    cwd: stateDir,
    mode: "auto" as const,
    model: { provider: "scripted" as const, model: "scripted", retries: 0 },
  };
  return {
    async start() {
      const sessionId = await store.create(settings, "probe", null);
      const lease = pool.lease(scriptedSessionInit(sessionId, stateDir, await store.workerLog(sessionId, "host")));
      const ack = await lease.call<OpenAck>((api) => api.open());
      if (!ack.ok) throw new Error(ack.message);
      return { stop: () => lease.terminate() };
    },
    async close() {
      await pool.destroy();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

async function main(variant: "bare" | "session", starts: number, live: number): Promise<ProbeReport> {
  const session = variant === "session" ? sessionStarter() : null;
  const start = session ? () => session.start() : startBare;
  // One start first: what loads once per process (the pool, the store) is not a session's cost.
  await (await start()).stop();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < starts; i++) await (await start()).stop();
  const cpu = process.cpuUsage(cpu0);
  const wallMsPerStart = (performance.now() - t0) / starts;
  await settle();
  const rssBaseline = rssBytes(process.pid);
  const kept: Started[] = [];
  for (let i = 0; i < live; i++) kept.push(await start());
  await settle();
  const rssLive = rssBytes(process.pid);
  await Promise.all(kept.map((worker) => worker.stop()));
  await session?.close();
  const mib = 2 ** 20;
  return {
    variant,
    starts,
    cpuMsPerStart: (cpu.user + cpu.system) / 1000 / starts,
    wallMsPerStart,
    live,
    rssBaselineMiB: rssBaseline / mib,
    rssPerLiveMiB: (rssLive - rssBaseline) / mib / live,
  };
}

/** Lets freshly started threads finish what they do after their first answer (GC, lazy compiles). */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
}

const [variant, starts, live] = process.argv.slice(2);
if (variant !== "bare" && variant !== "session")
  throw new Error("usage: worker-start-probe bare|session <starts> <live>");
main(variant, Number(starts), Number(live)).then(
  (report) => {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`);
    process.exit(1);
  },
);
