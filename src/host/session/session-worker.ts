// A session's worker, leased when needed: woken (a slot, a lease, the session opened from its log), released
// (hibernation, close, the watchdog) and replaced after it died. Never two workers on one log: a new worker opens the
// log only once the previous worker's thread is gone.
import { nowMs } from "../../protocol/trace.js";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { type ModelConfig, type SettingsFrom } from "../../protocol/port.js";
import { OpenAck, type WorkerEvent } from "../../protocol/worker-events.js";
import { WorkerGone, type WorkerExit, type WorkerLease } from "../../pool/worker-lease.js";
import { fromWorker, sessionClosed, workerFault, workerStartFailed } from "../../request-errors.js";
import type { Logger } from "../../logger.js";
import type { SessionDeps, SessionSettings } from "./session-deps.js";
import type { SessionPhaseMachine } from "./session-phase.js";
import type { Slot, SlotHolder } from "./worker-slots.js";
import type { Share } from "../../protocol/gateway-asks.js";

export interface SessionWorkerHooks {
  /** Takes the session's slot when a worker is needed. */
  holder: SlotHolder;
  /** Whose the session's model requests are, in the model gateway's fair share. */
  share: Share;
  /** Events from the current worker, in the order it posted them; settles once the output they made has left. */
  onEvents(lease: WorkerLease, events: WorkerEvent[]): Promise<void> | void;
  /** The current worker broke the port's contract: it is being replaced; fault is the error to answer with. */
  onFault(fault: RequestError): void;
  /**
   * The current worker ended without being released (a crash, a hard cancel, a terminate); whileOpening: it had not
   * opened the session yet (the wake that made it fails with why).
   */
  onExit(exit: WorkerExit, whileOpening: boolean): void;
  /** A worker opened the session: its log holds `shown` replayable entries, every one shown before. */
  onOpened(shown: number): void;
  /** A wake has finished, well or not. */
  onWoken(): void;
}

export class SessionWorker {
  readonly #id: string;
  readonly #settings: SessionSettings;
  readonly #deps: SessionDeps;
  readonly #logger: Logger;
  readonly #hooks: SessionWorkerHooks;
  /** The session's phase: this moves it through waking, opening and releasing its worker. */
  readonly #state: SessionPhaseMachine;
  #lease: WorkerLease | null = null;
  /** The wake under way (phases waiting and starting), and the release under way, to wait for. */
  #waking: Promise<WorkerLease> | null = null;
  #releasing: Promise<void> | null = null;
  /** A stored session's first worker takes its mode and model from the log. */
  #adoptLog: boolean;
  #workersStarted = 0;
  /** The thread of the current worker, once it has opened (for log lines and status rows). */
  #threadId: number | null = null;
  readonly #threadExits = new WeakMap<WorkerLease, { threadExit: Promise<void> }>();
  /** The exit of the session's last worker thread: an ended task's thread may run a moment longer. */
  #previousThread: Promise<void> = Promise.resolve();

  constructor(
    id: string,
    settings: SessionSettings,
    deps: SessionDeps,
    logger: Logger,
    hooks: SessionWorkerHooks,
    state: SessionPhaseMachine,
    adoptLog: boolean,
  ) {
    this.#id = id;
    this.#settings = settings;
    this.#deps = deps;
    this.#logger = logger;
    this.#hooks = hooks;
    this.#state = state;
    this.#adoptLog = adoptLog;
  }

  /** The opened worker if it is alive (not one still opening). */
  get live(): WorkerLease | null {
    return this.#state.phase === "live" && this.#lease?.alive ? this.#lease : null;
  }

  /** The current worker, alive or not yet known to be dead. */
  get current(): WorkerLease | null {
    return this.#lease;
  }

  /** The thread of the opened worker; null while it opens. */
  get threadId(): number | null {
    return this.live ? this.#threadId : null;
  }

  get lastThreadId(): number | null {
    return this.#threadId;
  }

  /** The session's opened worker; when it has none, a fresh one restored from the log. */
  wake(): Promise<WorkerLease> {
    if (this.#state.closed) return Promise.reject(sessionClosed());
    if (this.#waking) return this.#waking;
    if (this.#lease?.alive) return Promise.resolve(this.#lease);
    this.#state.on("wake");
    const waking = this.#open().finally(() => {
      this.#waking = null;
      this.#hooks.onWoken();
    });
    this.#waking = waking;
    return waking;
  }

  /** Settles once a release under way has (at once when none is). */
  get released(): Promise<void> {
    return this.#releasing ?? Promise.resolve();
  }

  /**
   * Disposes the worker (graceful for graceMs, then terminated; with 0 it is terminated at once, never asked to
   * dispose: a worker nobody waits for would only spend the CPU its siblings need to end); resolves once its
   * thread is gone.
   */
  release(graceMs: number): Promise<void> {
    const lease = this.#lease;
    this.#lease = null;
    if (!lease) return this.#releasing ?? Promise.resolve();
    this.#state.on("release");
    const releasing = (async () => {
      if (graceMs > 0) {
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
        await Promise.race([lease.call((api) => api.dispose()).catch(() => {}), timeout]);
      }
      await lease.terminate();
      // Released means the thread is gone and its slot free again.
      await this.#threadExits.get(lease)?.threadExit;
    })().finally(() => {
      if (this.#releasing === releasing) this.#releasing = null;
      this.#state.on("released");
    });
    this.#releasing = releasing;
    return releasing;
  }

  /** A reply or event from the worker that breaks the port's contract: logged, the worker ended, the fault named. */
  fault(lease: WorkerLease, what: "reply to open" | "reply to replay" | "event", detail: string): RequestError {
    this.#logger.error(
      { threadId: this.#threadId, detail },
      `session worker sent a malformed ${what}: worker replaced`,
    );
    // An opened worker is released like any other (the next one waits for its thread); one opening fails its open.
    if (lease === this.#lease && this.#state.phase === "live") void this.release(0);
    else void this.#discard(lease);
    return workerFault(this.#id, `session ${this.#id}: its worker sent a malformed ${what}; the worker was replaced`);
  }

  async #open(): Promise<WorkerLease> {
    try {
      if (this.#releasing) await this.#releasing;
      await this.#previousThread;
      const slot = await this.#deps.slots.acquire(this.#hooks.holder);
      if (this.#state.closed) {
        slot.release();
        throw sessionClosed();
      }
      this.#state.on("open");
      return await this.#openLease(slot);
    } catch (error) {
      this.#state.on("startFailed");
      throw error;
    }
  }

  async #openLease(slot: Slot): Promise<WorkerLease> {
    const startedAtMs = nowMs();
    const settingsFrom: SettingsFrom = this.#adoptLog ? "log" : "host";
    let lease: WorkerLease;
    try {
      const init = await this.#deps.workerInit(this.#id, this.#settings, settingsFrom);
      lease = this.#deps.pool.lease(init, this.#deps.gatewayPort?.(this.#id, this.#hooks.share) ?? null);
    } catch (error) {
      slot.release();
      throw error;
    }
    const attached = this.#attach(lease, slot);
    let ack: OpenAck;
    try {
      const reply = OpenAck.safeParse(await lease.call<unknown>((api) => api.open()));
      if (!reply.success) throw this.fault(lease, "reply to open", reply.error.message);
      ack = reply.data;
      if (ack.ok) attached.threadExit = this.#deps.pool.threadExit(ack.threadId);
      if (ack.ok && this.#adoptLog) {
        this.#settings.mode = ack.mode;
        const model = this.#deps.resolveModel(ack.model);
        this.#settings.model = model;
        if (!sameModel(model, ack.model)) await lease.call((api) => api.setModel(model));
        this.#adoptLog = false;
      }
    } catch (error) {
      await this.#discard(lease);
      if (error instanceof WorkerGone) throw workerStartFailed(this.#id, error.exit.cause);
      if (error instanceof RequestError) throw error;
      throw workerStartFailed(this.#id, (error as Error).message);
    }
    if (!ack.ok) {
      await this.#discard(lease);
      // A log it cannot use keeps its own reason: it refuses every worker alike.
      throw ack.reason === "WORKER_FAILED"
        ? workerStartFailed(this.#id, ack.message)
        : fromWorker(ack.reason, ack.message, { sessionId: this.#id });
    }
    this.#threadId = ack.threadId;
    // The worker wrote the session's sidecar when it restored the log.
    this.#deps.store.touched(this.#id);
    if (this.#state.closed) {
      await this.#discard(lease);
      throw sessionClosed();
    }
    const restored = this.#workersStarted++ > 0 || settingsFrom === "log";
    if (restored) this.#logger.info({ turns: ack.turns }, "session restored from its log in a fresh worker");
    this.#deps.hooks.emit("workerStarted", {
      sessionId: this.#id,
      threadId: ack.threadId,
      restored,
      turns: ack.turns,
      startedAtMs,
    });
    this.#hooks.onOpened(ack.shown);
    this.#state.on("opened");
    return lease;
  }

  /** Ends a worker that failed to open: the caller reports why, not its exit handler. */
  async #discard(lease: WorkerLease): Promise<void> {
    if (this.#lease === lease) this.#lease = null;
    await lease.terminate();
  }

  /** threadExit: set once the worker says which thread it is; its slot is free only when that thread is gone. */
  #attach(lease: WorkerLease, slot: Slot): { threadExit: Promise<void> } {
    const attached = { threadExit: Promise.resolve() };
    this.#threadExits.set(lease, attached);
    this.#lease = lease;
    lease.listen(
      (events) => (lease === this.#lease ? this.#hooks.onEvents(lease, events) : undefined),
      (error) => {
        // A worker that sends what the contract does not allow is faulty: its turn fails and it is replaced.
        if (lease === this.#lease) this.#hooks.onFault(this.fault(lease, "event", error));
      },
    );
    void lease.exited.then((exit) => {
      this.#previousThread = attached.threadExit;
      void attached.threadExit.then(() => slot.release());
      // A worker released on purpose (hibernation, close) is no longer the session's: its end changes nothing.
      if (this.#lease !== lease) return;
      this.#lease = null;
      const whileOpening = this.#state.phase === "starting";
      this.#state.on("exited");
      this.#hooks.onExit(exit, whileOpening);
    });
    return attached;
  }
}

function sameModel(a: ModelConfig, b: ModelConfig): boolean {
  const canonical = (model: ModelConfig) => JSON.stringify(model, Object.keys(model).sort());
  return canonical(a) === canonical(b);
}
