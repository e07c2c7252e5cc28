// Leases session workers from piscina: one long-running task per session, one session per thread.
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { SessionTask, WorkerInit } from "../protocol/port.js";
import { WorkerLease } from "./worker-lease.js";

export interface WorkerPoolOptions {
  warmWorkers: number;
  maxLiveWorkers: number;
  sessionHeapMb: number;
}

const SESSION_ENTRY = new URL("../../workers/session-entry.js", import.meta.url).href;

export class WorkerPool {
  readonly #piscina: Piscina<SessionTask, never>;

  constructor(options: WorkerPoolOptions) {
    this.#piscina = new Piscina<SessionTask, never>({
      filename: SESSION_ENTRY,
      minThreads: Math.min(options.warmWorkers, options.maxLiveWorkers),
      maxThreads: options.maxLiveWorkers,
      // Spares above minThreads are fresh (a used thread is always terminated), so keeping them a while is safe.
      idleTimeout: 30_000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: options.sessionHeapMb },
      // Every thread is a session's for life: queue leases beyond maxLiveWorkers rather than share a thread.
      maxQueue: Number.MAX_SAFE_INTEGER,
    });
  }

  get liveThreads(): number {
    return this.#piscina.threads.length;
  }

  lease(init: WorkerInit): WorkerLease {
    const commands = new MessageChannel();
    const events = new MessageChannel();
    const abort = new AbortController();
    const task: SessionTask = { commands: commands.port2, events: events.port2, init };
    const run = this.#piscina.run(task, { transferList: [commands.port2, events.port2], signal: abort.signal });
    return new WorkerLease(commands.port1, events.port1, run, abort);
  }

  async destroy(): Promise<void> {
    await this.#piscina.destroy();
  }
}
