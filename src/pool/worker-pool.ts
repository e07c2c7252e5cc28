// Leases session workers from piscina: one long-running task per session, one session per thread.
// Standby tasks are kept running ahead of demand (StandbyTarget: more during a burst of session/new, back to
// --warm-workers after it), so a new session binds to a thread that has started instead of paying for one.
import { availableParallelism } from "node:os";
import { pathToFileURL } from "node:url";
import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import * as Comlink from "comlink";
import { Piscina } from "piscina";
import { OutputWindow, outputWindowBuffer } from "../protocol/output-window.js";
import type { SessionTask, WorkerInit } from "../protocol/port.js";
import { CpuShare } from "./cpu-share.js";
import { tuneIsolates } from "./isolate-flags.js";
import { StandbyTarget } from "./standby-target.js";
import { StartGate } from "./start-gate.js";
import { workerExecArgv } from "./worker-exec-argv.js";
import { WorkerLease } from "./worker-lease.js";

export interface WorkerPoolOptions {
  /** Standby workers kept at all times. */
  warmWorkers: number;
  /** Standby workers kept at most, after a burst of new sessions (default: warmWorkers). */
  maxWarmWorkers?: number;
  /** How long the largest burst of leases is remembered whole (standby-target.ts); default HOLD_MS. */
  burstMemoryMs?: number;
  /** What the standby workers may add to the process's RSS (WORKER_RSS_ESTIMATE_BYTES each); default: no bound. */
  warmBudgetBytes?: number;
  maxLiveWorkers: number;
  sessionHeapMb: number;
  /** The worker module (default: the host's own session worker). */
  entry?: string;
  /** A thread failed after its task had ended (the host ended the lease, then the thread threw): nobody's turn. */
  onStrayError?: (error: unknown) => void;
}

const SHRINK_EVERY_MS = 1000;
/**
 * The standby pool is refilled once no lease has been taken for this long: a thread's start costs a core for about a
 * tenth of a second, and refilled between the session/new of an orchestrator that opens sessions one after another
 * it doubled their latency. Leases that find the pool empty meanwhile start their own thread, as they would anyway.
 */
const REPLENISH_QUIET_MS = 250;
/** ...but not later than this after the first lease it waits on: sessions opened without pause still find some warm. */
const REPLENISH_MAX_WAIT_MS = 1000;
/**
 * A refill due while the host's threads use more than this share of the cores waits for spare time: a starting thread
 * runs at the main thread's priority, above session threads (--worker-nice), and a burst's refill took the machine from
 * the first turns of the sessions just opened (docs/performance.md, "Measured choices in the code").
 */
const REPLENISH_BUSY_SHARE = 0.5;
/**
 * ...for at most this long after it was first asked for; then a host busy without pause gets its standby threads one
 * each REPLENISH_BUSY_EVERY_MS.
 */
const REPLENISH_MAX_DEFER_MS = 3000;
const REPLENISH_BUSY_EVERY_MS = 1000;
/** A start that has not answered by then releases its place in the start gate (far longer than a start takes). */
const SLOW_START_MS = 5000;

/** What a live, idle session worker adds to the host's RSS, with a margin (the bench's worker-start scenario). */
export const WORKER_RSS_ESTIMATE_BYTES = 12 * 2 ** 20;

/** The session worker as one bundle (npm run build): a thread loads one file, not a module graph. */
const SESSION_ENTRY = new URL("../../workers/bundle/session-loader.js", import.meta.url).href;

export class WorkerPool {
  readonly #piscina: Piscina<SessionTask, never>;
  readonly #target: StandbyTarget;
  readonly #standby: WorkerLease[] = [];
  readonly #shrinkTimer: NodeJS.Timeout;
  #closed = false;
  #replenishing: NodeJS.Timeout | null = null;
  /** When the refill now pending was first asked for. */
  #replenishWaitingSince = 0;
  /** The standby count a deferred refill will make: the target when it was first due (the burst's, not after it). */
  #deferredTarget: number | null = null;
  readonly #cpu = new CpuShare();
  /** Threads by id, as last read from piscina (threadExit). */
  readonly #threads = new Map<number, Worker>();
  /** The pool's threads from their making to their exit (piscina drops an ended one from its list before it exits). */
  readonly #alive = new Set<Worker>();
  readonly #counted = new WeakSet<Worker>();
  #mostAlive = 0;
  /** Two starts per core load at once (start-gate.ts says why). */
  readonly #starts = new StartGate(availableParallelism() * 2);
  readonly #maxLiveWorkers: number;
  /** Leases whose thread has loaded and answered: a standby one counts as ready only then. */
  readonly #loaded = new WeakSet<WorkerLease>();
  /** Leases announced ahead (expect()) and not yet taken: their threads are started while their sessions wait. */
  #expected = 0;

  constructor(options: WorkerPoolOptions) {
    const budgetThreads =
      options.warmBudgetBytes === undefined
        ? Number.POSITIVE_INFINITY
        : Math.floor(options.warmBudgetBytes / WORKER_RSS_ESTIMATE_BYTES);
    this.#target = new StandbyTarget(
      options.warmWorkers,
      Math.min(options.maxWarmWorkers ?? options.warmWorkers, Math.max(options.warmWorkers, budgetThreads)),
      options.burstMemoryMs,
    );
    this.#maxLiveWorkers = options.maxLiveWorkers;
    const maxThreads = options.maxLiveWorkers + this.#target.max;
    tuneIsolates();
    this.#piscina = new Piscina<SessionTask, never>({
      filename: options.entry ? pathToFileURL(options.entry).href : SESSION_ENTRY,
      // Standby tasks hold the warm threads; piscina need not keep idle ones of its own.
      minThreads: 0,
      maxThreads,
      idleTimeout: 1000,
      concurrentTasksPerWorker: 1,
      resourceLimits: { maxOldGenerationSizeMb: options.sessionHeapMb },
      // The host's entry is CommonJS and is required. An ESM entry (--worker-entry) must go through import():
      // Node 20's require(esm) aborts the whole process (v8 IsGraphAsync fatal) when a thread is ended mid-load.
      execArgv: [...workerExecArgv(), "--no-experimental-require-module"],
      // Every thread is a session's for life: queue leases beyond maxThreads rather than share a thread.
      maxQueue: Number.MAX_SAFE_INTEGER,
    });
    // piscina emits an error that no task owns on the pool, and an unheard one would end the host.
    this.#piscina.on("error", (error: unknown) => options.onStrayError?.(error));
    // A thread piscina made other than for a task run here (none are expected) is counted once it is ready.
    this.#piscina.on("workerCreate", () => this.#countThreads());
    this.#replenish();
    this.#shrinkTimer = setInterval(() => this.#shrink(), SHRINK_EVERY_MS).unref();
  }

  /** Started workers waiting for a session. */
  get standby(): number {
    return this.#standby.length;
  }

  /** Whether the standby pool holds what the last bursts needed (readiness: /readyz). */
  get ready(): boolean {
    const started = this.#standby.filter((lease) => this.#loaded.has(lease)).length;
    return started >= this.#wanted(performance.now());
  }

  /** The standby count the pool works towards now. */
  get wantedStandby(): number {
    return this.#wanted(performance.now());
  }

  /** Session worker threads alive now: made and not yet exited (standby ones included). */
  get liveThreads(): number {
    return this.#alive.size;
  }

  /** The most session worker threads that were alive at once since the pool was made. */
  get mostLiveThreads(): number {
    return this.#mostAlive;
  }

  /**
   * A lease that will be asked for soon, while the CPU is idle meanwhile (a session waiting for a dead host's lease to
   * run out): its thread starts now, as a standby one, so the lease later only binds it. The returned function says
   * the lease was taken, or will not be.
   */
  expect(): () => void {
    this.#expected++;
    this.#replenish();
    let told = false;
    return () => {
      if (told) return;
      told = true;
      this.#expected--;
    };
  }

  /** A worker for one session: a standby one when there is one, else a new task. gateway: its port to the model gateway. */
  lease(init: WorkerInit, gateway: MessagePort | null = null): WorkerLease {
    this.#target.recordLease(performance.now());
    const lease = this.#standby.shift() ?? this.#spawn();
    // Making a thread blocks the main thread for a while: not now, while sessions are being opened and answered.
    this.#replenishWhenQuiet();
    lease
      .call((api) => (gateway ? api.start(init, Comlink.transfer(gateway, [gateway])) : api.start(init)))
      .catch(() => {});
    return lease;
  }

  /**
   * Resolves once the thread with this id has exited (at once if it is not one of the pool's). An ended lease
   * settles before its thread is gone; whoever counts live threads waits for this.
   */
  threadExit(threadId: number): Promise<void> {
    // piscina.threads builds a new array of every thread: read it only for an id not seen yet (a burst of opens
    // then costs one pass, not one per session).
    if (!this.#threads.has(threadId)) {
      this.#threads.clear();
      for (const worker of this.#piscina.threads) this.#threads.set(worker.threadId, worker);
    }
    const thread = this.#threads.get(threadId);
    if (!thread) return Promise.resolve();
    this.#threads.delete(threadId);
    return new Promise((resolve) => thread.once("exit", () => resolve()));
  }

  async destroy(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#shrinkTimer);
    if (this.#replenishing) clearTimeout(this.#replenishing);
    await Promise.all(this.#standby.splice(0).map((lease) => lease.terminate()));
    await this.#piscina.destroy();
  }

  /** A new thread, started once the gate lets it: its lease takes messages at once (the ports queue them). */
  #spawn(): WorkerLease {
    const commands = new MessageChannel();
    const events = new MessageChannel();
    const abort = new AbortController();
    const task: SessionTask = { commands: commands.port2, events: events.port2, outputWindow: outputWindowBuffer() };
    const run = this.#starts.acquire().then((release) => {
      if (abort.signal.aborted) {
        release();
        throw new Error("ended before its thread started");
      }
      const running = this.#piscina.run(task, { transferList: [commands.port2, events.port2], signal: abort.signal });
      // piscina makes the task's thread within run().
      this.#countThreads();
      // Loaded once it answers a call; the next start may begin then (or when this one failed). A thread that takes
      // far longer than a start does no longer holds the others back.
      const slow = setTimeout(release, SLOW_START_MS).unref();
      const loaded = () => {
        clearTimeout(slow);
        release();
      };
      void lease
        .call((api) => api.stats())
        .then(() => {
          this.#loaded.add(lease);
          loaded();
        }, loaded);
      return running;
    });
    const lease = new WorkerLease(commands.port1, events.port1, run, abort, new OutputWindow(task.outputWindow));
    return lease;
  }

  #countThreads(): void {
    for (const thread of this.#piscina.threads) {
      if (this.#counted.has(thread)) continue;
      this.#counted.add(thread);
      this.#alive.add(thread);
      this.#mostAlive = Math.max(this.#mostAlive, this.#alive.size);
      thread.once("exit", () => this.#alive.delete(thread));
    }
  }

  #replenishWhenQuiet(): void {
    const now = performance.now();
    if (this.#replenishing) {
      if (now - this.#replenishWaitingSince >= REPLENISH_MAX_WAIT_MS - REPLENISH_QUIET_MS) return;
      clearTimeout(this.#replenishing);
    } else {
      this.#replenishWaitingSince = now;
      this.#cpu.sinceLast();
    }
    this.#replenishLater();
  }

  #replenishLater(ms = REPLENISH_QUIET_MS): void {
    this.#replenishing = setTimeout(() => this.#replenishIfSpare(), ms);
    this.#replenishing.unref();
  }

  #replenishIfSpare(): void {
    this.#replenishing = null;
    const now = performance.now();
    this.#deferredTarget ??= this.#wanted(now);
    const target = Math.max(this.#deferredTarget, this.#wanted(now));
    if (this.#cpu.sinceLast() > REPLENISH_BUSY_SHARE) {
      // Busy past the deferral: one thread at a time, not the whole refill at once, which took both cores (the start
      // gate's permits) from the turns of a burst that outlasted the deferral.
      const deferredLong = now - this.#replenishWaitingSince >= REPLENISH_MAX_DEFER_MS;
      if (deferredLong) this.#replenish(Math.min(target, this.#standby.length + 1));
      if (this.#standby.length < target) {
        this.#replenishLater(deferredLong ? REPLENISH_BUSY_EVERY_MS : REPLENISH_QUIET_MS);
        return;
      }
    } else this.#replenish(target);
    this.#deferredTarget = null;
  }

  /** The standby count wanted now: the burst's (StandbyTarget), or the leases expected, within --max-live-workers. */
  #wanted(now: number): number {
    return Math.max(this.#target.target(now), Math.min(this.#expected, this.#maxLiveWorkers));
  }

  #replenish(target = this.#wanted(performance.now())): void {
    while (!this.#closed && this.#standby.length < target) {
      const lease = this.#spawn();
      this.#standby.push(lease);
      void lease.exited.then(() => {
        const index = this.#standby.indexOf(lease);
        if (index >= 0) this.#standby.splice(index, 1);
      });
    }
  }

  /** Ends the standby workers a burst left beyond the target, newest first (the oldest are surely started). */
  #shrink(): void {
    const target = this.#wanted(performance.now());
    for (const lease of this.#standby.splice(target)) void lease.terminate();
  }
}
