// Leases session workers from piscina: one long-running task per session, one session per thread.
// A few standby tasks are kept running ahead of demand, so a new session binds to a thread whose modules are
// already loaded instead of paying a thread spawn and module load on its first prompt.
import { pathToFileURL } from "node:url";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { SessionTask, WorkerInit } from "../protocol/port.js";
import { WorkerLease } from "./worker-lease.js";

export interface WorkerPoolOptions {
  warmWorkers: number;
  maxLiveWorkers: number;
  sessionHeapMb: number;
  /** The worker module (default: the host's own session worker). */
  entry?: string;
}

/** The session worker as one bundle (npm run build): a thread loads one file, not a module graph. */
const SESSION_ENTRY = new URL("../../workers/bundle/session-loader.js", import.meta.url).href;

export class WorkerPool {
  readonly #piscina: Piscina<SessionTask, never>;
  readonly #warm: number;
  readonly #standby: WorkerLease[] = [];
  #closed = false;

  constructor(options: WorkerPoolOptions) {
    this.#warm = options.warmWorkers;
    const maxThreads = options.maxLiveWorkers + options.warmWorkers;
    this.#piscina = new Piscina<SessionTask, never>({
      filename: options.entry ? pathToFileURL(options.entry).href : SESSION_ENTRY,
      // Standby tasks hold the warm threads; piscina need not keep idle ones of its own.
      minThreads: 0,
      maxThreads,
      idleTimeout: 1000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: options.sessionHeapMb },
      // piscina tries require() on the entry before import(); Node 20's require(esm) aborts the whole process
      // (v8 IsGraphAsync fatal) when a thread is terminated mid-load. Forcing the import() path avoids it.
      execArgv: [...process.execArgv, "--no-experimental-require-module"],
      // Every thread is a session's for life: queue leases beyond maxThreads rather than share a thread.
      maxQueue: Number.MAX_SAFE_INTEGER,
    });
    this.#replenish();
  }

  get liveThreads(): number {
    return this.#piscina.threads.length;
  }

  /** A worker for one session: a standby one when there is one, else a new task. */
  lease(init: WorkerInit): WorkerLease {
    const lease = this.#standby.shift() ?? this.#spawn();
    this.#replenish();
    lease.call((api) => api.start(init)).catch(() => {});
    return lease;
  }

  /**
   * Resolves once the thread with this id has exited (at once if it is not one of the pool's). An ended lease
   * settles before its thread is gone; whoever counts live threads waits for this.
   */
  threadExit(threadId: number): Promise<void> {
    const thread = this.#piscina.threads.find((worker) => worker.threadId === threadId);
    if (!thread) return Promise.resolve();
    return new Promise((resolve) => thread.once("exit", () => resolve()));
  }

  async destroy(): Promise<void> {
    this.#closed = true;
    await Promise.all(this.#standby.splice(0).map((lease) => lease.terminate()));
    await this.#piscina.destroy();
  }

  #spawn(): WorkerLease {
    const commands = new MessageChannel();
    const events = new MessageChannel();
    const abort = new AbortController();
    const task: SessionTask = { commands: commands.port2, events: events.port2 };
    const run = this.#piscina.run(task, { transferList: [commands.port2, events.port2], signal: abort.signal });
    return new WorkerLease(commands.port1, events.port1, run, abort);
  }

  #replenish(): void {
    while (!this.#closed && this.#standby.length < this.#warm) {
      const lease = this.#spawn();
      this.#standby.push(lease);
      void lease.exited.then(() => {
        const index = this.#standby.indexOf(lease);
        if (index >= 0) this.#standby.splice(index, 1);
      });
    }
  }
}
