// One session as the main thread sees it: its worker lease, its prompt in flight, its permission requests.
// Everything that arrives on the lease's port belongs to this session and to no other. The session is its log:
// the worker is leased when needed and restored from the log (after a crash, a hard cancel, or hibernation,
// which releases the worker of an idle session), so a session outlives any one worker.
import { randomUUID } from "node:crypto";
import {
  RequestError,
  type PermissionOption,
  type PromptResponse,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import {
  OpenAck,
  PermissionOutcome,
  REPLAY_TURN_ID,
  type ModelConfig,
  type SessionModeId,
  type SpawnerGrant,
  type ToolKind,
  type WorkerEvent,
  type WorkerInit,
} from "../protocol/port.js";
import type { WorkerPool } from "../pool/worker-pool.js";
import { WorkerGone, type WorkerLease } from "../pool/worker-lease.js";
import { fromWorker, invalidRequest, promptInFlight, sessionClosed, workerFault } from "./errors.js";
import { foreignFields, type Logger } from "./logger.js";
import type { SessionObserver } from "./metrics.js";
import type { SessionStatus } from "../protocol/host-status.js";
import type { Peer } from "./peer.js";
import type { SessionStore } from "./session-store.js";
import { toSessionUpdates } from "./updates.js";
import type { Slot, SlotHolder, WorkerSlots } from "./worker-slots.js";

export interface SessionSettings {
  cwd: string;
  mode: SessionModeId;
  model: ModelConfig;
}

export interface SessionDeps {
  pool: WorkerPool;
  log: Logger;
  cancelGraceMs: number;
  /** A turn running longer is cancelled (0: never). */
  turnTimeoutMs: number;
  /** Told of turn ends, tool call ends and worker exits (the metrics); unset without --metrics-listen. */
  observer?: SessionObserver;
  /** Builds the worker's init from the session's current settings. */
  workerInit(id: string, settings: SessionSettings, restore: WorkerRestore): WorkerInit;
  slots: WorkerSlots;
  store: SessionStore;
  /** Idle time after which the session's worker is released (0: never). */
  hibernateAfterMs: number;
  /** This host's configuration of a model a log names (the host's default model when it has none by that name). */
  resolveModel(model: ModelConfig): ModelConfig;
  /** A fresh spawner grant for this session (after the host restarted its spawner); null when there is none. */
  grantFor?(id: string, cwd: string): SpawnerGrant | null;
  /** Ends the session's commands in the spawner, background tasks included (they outlive its workers, not it). */
  endSession?(id: string): Promise<void>;
}

/** Whose mode and model a restored worker takes: the log's (session/load, resume) or the record's. */
export type WorkerRestore = NonNullable<WorkerInit["log"]>["restore"];

/** How long a status row waits for its worker's figures. */
const STATUS_WAIT_MS = 250;

/** An idle worker has nothing to finish: its dispose is quick. */
const HIBERNATE_GRACE_MS = 1000;

interface Turn {
  id: string;
  resolve(response: PromptResponse): void;
  reject(error: Error): void;
  cancelRequested: boolean;
  graceTimer: NodeJS.Timeout | null;
  timeoutTimer: NodeJS.Timeout | null;
  startedAt: number;
}

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always (this session, this tool)", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

export interface SessionOptions {
  /** The session comes from the state dir (session/load, resume) rather than session/new. */
  stored?: boolean;
  /** Whose it is (from its log header); null: no tenant, only tenantless peers see it. */
  tenant?: string | null;
}

export class SessionRecord implements SlotHolder {
  readonly id: string;
  readonly settings: SessionSettings;
  readonly tenant: string | null;
  readonly #deps: SessionDeps;
  readonly #log: Logger;
  readonly #permissionRequests = new Map<string, AbortController>();
  #lease: WorkerLease | null = null;
  #turn: Turn | null = null;
  #sent: Promise<void> = Promise.resolve();
  #workersStarted = 0;
  /** Turns answered since the session was opened in this host, and its token sums (from its usage events). */
  #turnsAnswered = 0;
  #tokens: SessionStatus["tokens"] = null;
  /** The watchdog's ping still unanswered, if any: its id and when it was sent. */
  #ping: { id: number; sentAt: number } | null = null;
  #pings = 0;
  readonly #toolStarts = new Map<string, { kind: ToolKind; at: number }>();
  /** The thread of the session's current worker, once it has opened (for log lines). */
  #threadId: number | null = null;
  #closed = false;
  #closing: Promise<void> | null = null;
  /** Set while a worker is being leased and opened; #opening once it has a slot. */
  #waking: Promise<WorkerLease> | null = null;
  #opening: Promise<WorkerLease> | null = null;
  #releasing: Promise<void> | null = null;
  #replay: { done(): void; fail(error: Error): void } | null = null;
  /** A stored session's first worker takes its mode and model from the log. */
  #adoptLog: boolean;
  #idleTimer: NodeJS.Timeout | null = null;
  #lastUsed = performance.now();
  readonly #attached = new WeakMap<WorkerLease, { threadExit: Promise<void> }>();
  /** The exit of the session's last worker thread: an ended task's thread may run a moment longer. */
  #previousThread: Promise<void> = Promise.resolve();
  /** The connection the session's updates and permission requests go to; null while detached. */
  #attachment: Peer | null = null;
  #idleWaiters: Array<() => void> = [];

  constructor(id: string, settings: SessionSettings, deps: SessionDeps, options: SessionOptions = {}) {
    this.id = id;
    this.settings = settings;
    this.tenant = options.tenant ?? null;
    this.#deps = deps;
    this.#log = deps.log.child({ sessionId: id });
    this.#adoptLog = options.stored ?? false;
  }

  get busy(): boolean {
    return this.#turn !== null;
  }

  get attachment(): Peer | null {
    return this.#attachment;
  }

  /** Resolves once no prompt is in flight. */
  whenIdle(): Promise<void> {
    if (!this.#turn) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** From now on the session's updates go to this peer (session/new, load, resume, a takeover). */
  attach(peer: Peer): void {
    this.#attachment = peer;
  }

  /**
   * Its connection is gone: a running turn goes on and is journaled, but what it sends reaches no one (the log
   * has it), and a permission it asks for is answered cancelled.
   */
  detach(peer: Peer): void {
    if (this.#attachment !== peer) return;
    this.#attachment = null;
    for (const request of this.#permissionRequests.values()) request.abort();
  }

  /** When it was last used, while it holds a live worker that nothing is using (so it may hibernate); else null. */
  get idleSince(): number | null {
    if (!this.#lease?.alive || this.#waking || this.#releasing || this.#turn || this.#replay || this.#closed) return null;
    return this.#lastUsed;
  }

  /** No worker: the next prompt restores the session from its log. */
  get hibernated(): boolean {
    return !this.#closed && !this.#lease && !this.#waking;
  }

  /** Leases a worker now, if one is free without hibernating anyone, so the first prompt finds it started. */
  start(): void {
    // A session closed before its turn to start (a burst of session/new, then close) needs no worker.
    if (this.#closed || !this.#deps.slots.free) return;
    this.#wake().catch((error: unknown) => this.#log.warn({ err: error }, "session worker did not start"));
  }

  /** Opens the session in a worker, restored from its log, without replaying it (session/resume). */
  async restore(): Promise<void> {
    await this.#wake();
  }

  /** Sends the session's history as session/update notifications and resolves once all are out (session/load). */
  async replayHistory(): Promise<void> {
    if (this.#closed) throw sessionClosed();
    if (this.#turn) throw invalidRequest("a prompt is in flight for this session: load it once the prompt has ended", { sessionId: this.id });
    if (this.#replay) throw invalidRequest("this session is being loaded already", { sessionId: this.id });
    let done: () => void = () => {};
    let fail: (error: Error) => void = () => {};
    const finished = new Promise<void>((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    finished.catch(() => {});
    this.#replay = { done, fail };
    this.#used();
    try {
      const lease = await this.#wake();
      await lease.call((api) => api.replay());
      await finished;
      await this.#sent;
    } catch (error) {
      if (error instanceof WorkerGone) throw workerFault(this.id, `session worker died while replaying: ${error.exit.cause}`);
      throw error;
    } finally {
      this.#replay = null;
      this.#wentIdle();
    }
  }

  /**
   * The watchdog's look at an idle session's worker: a ping unanswered for stallMs means its event loop is blocked
   * (or the thread is gone astray); the worker is ended and the next prompt restores the session from its log.
   * A session with a turn running is the cancel grace's business, not this.
   */
  checkAlive(stallMs: number, now: number): void {
    const lease = this.#lease;
    if (!lease?.alive || this.#turn || this.#opening || this.#waking || this.#releasing || this.#replay) {
      this.#ping = null;
      return;
    }
    if (this.#ping === null) {
      this.#ping = { id: ++this.#pings, sentAt: now };
      lease.post({ type: "ping", id: this.#ping.id });
      return;
    }
    if (now - this.#ping.sentAt < stallMs) return;
    this.#log.warn({ threadId: this.#threadId, stallMs }, "session worker did not answer a ping for --worker-stall-ms: terminated, the next prompt restores the session from its log");
    this.#ping = null;
    void this.#releaseWorker(0);
  }

  /** The session's row in `_host/status`: its worker's own figures are asked for, and left out if it is slow. */
  async status(now: number): Promise<SessionStatus> {
    const lease = this.#lease;
    const opened = lease?.alive && !this.#opening && this.#threadId !== null;
    const figures = opened
      ? await Promise.race([lease.call((api) => api.stats()).catch(() => null), new Promise<null>((resolve) => setTimeout(resolve, STATUS_WAIT_MS, null))])
      : null;
    return {
      sessionId: this.id,
      state: this.#turn ? "busy" : this.hibernated ? "hibernated" : "live",
      threadId: opened ? this.#threadId : null,
      workerActiveMs: figures ? figures.activeMs : null,
      heapUsedMiB: figures ? figures.heapUsedBytes / 2 ** 20 : null,
      turns: this.#turnsAnswered,
      idleMs: Math.max(0, now - this.#lastUsed),
      tokens: this.#tokens,
    };
  }

  /** The host restarted its spawner: the live worker gets a fresh grant (a later worker gets one when it is made). */
  regrant(): void {
    const lease = this.#lease;
    const grant = lease?.alive ? this.#deps.grantFor?.(this.id, this.settings.cwd) : null;
    if (lease && grant) lease.call((api) => api.regrant(grant)).catch(() => {});
  }

  /** Releases the worker if nothing uses it; the next prompt restores the session from its log. */
  hibernate(reason: string): Promise<void> {
    if (this.idleSince === null) return this.#releasing ?? Promise.resolve();
    this.#log.info({ reason }, "session hibernated: worker released, the next prompt restores it from its log");
    return this.#releaseWorker(HIBERNATE_GRACE_MS);
  }

  async prompt(text: string): Promise<PromptResponse> {
    if (this.#closed) throw sessionClosed();
    if (this.#turn) throw promptInFlight();
    if (this.#replay) throw invalidRequest("the session is being loaded: prompt it once session/load has answered");
    const turnId = randomUUID();
    const settled = new Promise<PromptResponse>((resolve, reject) => {
      this.#turn = { id: turnId, resolve, reject, cancelRequested: false, graceTimer: null, timeoutTimer: null, startedAt: performance.now() };
    });
    this.#used();
    const timeoutMs = this.#deps.turnTimeoutMs;
    if (timeoutMs > 0) {
      this.#turn!.timeoutTimer = setTimeout(() => {
        this.#log.warn({ turnTimeoutMs: timeoutMs }, "turn ran past --turn-timeout-ms: cancelled");
        this.cancel(`the turn ran longer than --turn-timeout-ms ${timeoutMs}`);
      }, timeoutMs);
    }
    let lease: WorkerLease;
    try {
      lease = await this.#wake();
    } catch (error) {
      // Unless the turn was settled meanwhile (closed; the worker died while opening), this error is its answer.
      if (this.#endTurn(turnId, "error")) throw error;
      return settled;
    }
    const turn = this.#turn as Turn | null;
    if (turn?.id !== turnId) return settled;
    if (turn.cancelRequested) {
      this.#settleTurn(turn, { stopReason: "cancelled" });
      return settled;
    }
    // The worker answers with the turn's events: turn_end, or turn_error (a refusal among them).
    lease.post({ type: "prompt", turnId, text });
    return settled;
  }

  /**
   * Cooperative cancel; the worker is terminated if the turn has not ended within the grace period. reason: why the
   * host cancels it (recorded in the log), none for the client's session/cancel.
   */
  cancel(reason?: string): void {
    const turn = this.#turn;
    if (!turn || turn.cancelRequested) return;
    turn.cancelRequested = true;
    for (const request of this.#permissionRequests.values()) request.abort();
    const lease = this.#lease;
    if (!lease) return;
    lease.post(reason === undefined ? { type: "cancel", turnId: turn.id } : { type: "cancel", turnId: turn.id, reason });
    turn.graceTimer = setTimeout(() => {
      if (this.#turn !== turn) return;
      this.#log.warn({ graceMs: this.#deps.cancelGraceMs }, "turn did not stop within the cancel grace: terminating its worker");
      void lease.terminate();
    }, this.#deps.cancelGraceMs);
  }

  async setMode(mode: SessionModeId): Promise<void> {
    this.settings.mode = mode;
    if (this.#lease?.alive) await this.#lease.call((api) => api.setMode(mode));
    await this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  async setModel(model: ModelConfig): Promise<void> {
    this.settings.model = model;
    if (this.#lease?.alive) await this.#lease.call((api) => api.setModel(model));
  }

  /**
   * Settles a pending prompt as cancelled, releases the worker (graceful, then terminated) and this process's lock
   * on the session; the log stays. Idempotent.
   */
  async close(graceMs: number): Promise<void> {
    if (this.#closing) return this.#closing;
    this.#closed = true;
    this.#clearIdleTimer();
    if (this.#turn) this.#settleTurn(this.#turn, { stopReason: "cancelled" });
    for (const request of this.#permissionRequests.values()) request.abort();
    this.#replay?.fail(sessionClosed());
    this.#closing = (async () => {
      try {
        // A worker still being opened is ended now, not awaited: #openLease sees the session closed and gives up.
        await this.#releaseWorker(this.#opening ? 0 : graceMs);
      } finally {
        await this.#deps.endSession?.(this.id).catch((error: unknown) => this.#log.warn({ err: error }, "ending the session's commands failed"));
        this.#deps.store.touched(this.id);
        await this.#deps.store.unlock(this.id);
      }
    })();
    return this.#closing;
  }

  #releaseWorker(graceMs: number): Promise<void> {
    this.#clearIdleTimer();
    const lease = this.#lease;
    this.#lease = null;
    if (!lease) return this.#releasing ?? Promise.resolve();
    const releasing = (async () => {
      const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([lease.call((api) => api.dispose()).catch(() => {}), timeout]);
      await lease.terminate();
      // Released means the thread is gone and its slot free again.
      await this.#attached.get(lease)?.threadExit;
    })().finally(() => {
      if (this.#releasing === releasing) this.#releasing = null;
    });
    this.#releasing = releasing;
    return releasing;
  }

  /** Sends one update for this session; updates go out in the order they were sent. */
  send(update: SessionUpdate): Promise<void> {
    // The peer attached now: an update produced for one connection never reaches the one that takes over later.
    const peer = this.#attachment;
    if (!peer) return this.#sent;
    const sent = this.#sent.then(() => peer.client.notify("session/update", { sessionId: this.id, update }));
    this.#sent = sent.catch((error: unknown) => {
      // A connection that closed took its undelivered updates with it; the log has them.
      if (!peer.closed) this.#log.warn({ err: error }, "session/update not delivered");
    });
    return this.#sent;
  }

  /** The session's opened worker; when it has none, a fresh one restored from the log. */
  #wake(): Promise<WorkerLease> {
    if (this.#closed) return Promise.reject(sessionClosed());
    if (this.#waking) return this.#waking;
    if (this.#lease?.alive) return Promise.resolve(this.#lease);
    const waking = this.#open().finally(() => {
      this.#waking = null;
      this.#wentIdle();
    });
    this.#waking = waking;
    return waking;
  }

  async #open(): Promise<WorkerLease> {
    // Never two workers on one log: the previous worker's thread is gone before the next one opens the log.
    if (this.#releasing) await this.#releasing;
    await this.#previousThread;
    const slot = await this.#deps.slots.acquire(this);
    if (this.#closed) {
      slot.release();
      throw sessionClosed();
    }
    const opening = this.#openLease(slot);
    this.#opening = opening;
    try {
      return await opening;
    } finally {
      this.#opening = null;
    }
  }

  async #openLease(slot: Slot): Promise<WorkerLease> {
    const restore: WorkerRestore = this.#adoptLog ? "log" : "host";
    let lease: WorkerLease;
    try {
      lease = this.#deps.pool.lease(this.#deps.workerInit(this.id, this.settings, restore));
    } catch (error) {
      slot.release();
      throw error;
    }
    const attached = this.#attach(lease, slot);
    let ack: OpenAck;
    try {
      const reply = OpenAck.safeParse(await lease.call<unknown>((api) => api.open()));
      if (!reply.success) throw this.#workerFault(lease, "reply to open", reply.error.message);
      ack = reply.data;
      if (ack.ok) attached.threadExit = this.#deps.pool.threadExit(ack.threadId);
      if (ack.ok && this.#adoptLog) {
        this.settings.mode = ack.mode;
        const model = this.#deps.resolveModel(ack.model);
        this.settings.model = model;
        if (!sameModel(model, ack.model)) await lease.call((api) => api.setModel(model));
        this.#adoptLog = false;
      }
    } catch (error) {
      await this.#discard(lease);
      if (error instanceof WorkerGone) throw workerFault(this.id, `session worker died while restoring the session: ${error.exit.cause}`);
      if (error instanceof RequestError) throw error;
      throw workerFault(this.id, `session worker failed to open the session: ${(error as Error).message}`);
    }
    if (!ack.ok) {
      await this.#discard(lease);
      throw fromWorker(ack.code, ack.message, { sessionId: this.id });
    }
    this.#threadId = ack.threadId;
    // The worker wrote the session's sidecar when it restored the log.
    this.#deps.store.touched(this.id);
    if (this.#closed) {
      await this.#discard(lease);
      throw sessionClosed();
    }
    if (this.#workersStarted++ > 0 || restore === "log") this.#log.info({ turns: ack.turns }, "session restored from its log in a fresh worker");
    return lease;
  }

  /** A reply or event from the worker that breaks the port's contract: logged, the worker ended, the fault named. */
  #workerFault(lease: WorkerLease, what: "reply to open" | "event", detail: string): RequestError {
    this.#log.error({ threadId: this.#threadId, detail }, `session worker sent a malformed ${what}: worker replaced`);
    void this.#discard(lease);
    return workerFault(this.id, `session ${this.id}: its worker sent a malformed ${what}; the worker was replaced`);
  }

  /** Ends a worker that failed to open: the caller reports why, not its exit handler. */
  async #discard(lease: WorkerLease): Promise<void> {
    if (this.#lease === lease) this.#lease = null;
    await lease.terminate();
  }

  /** threadExit: set once the worker says which thread it is; its slot is free only when that thread is gone. */
  #attach(lease: WorkerLease, slot: Slot): { threadExit: Promise<void> } {
    const attached = { threadExit: Promise.resolve() };
    this.#attached.set(lease, attached);
    this.#lease = lease;
    lease.listen(
      (events) => {
        for (const event of events) this.#onEvent(lease, event);
      },
      (error) => {
        // A worker that sends what the contract does not allow is faulty: its turn fails and it is replaced.
        if (lease !== this.#lease) return;
        const fault = this.#workerFault(lease, "event", error);
        if (this.#turn) this.#failTurn(this.#turn, fault);
        this.#replay?.fail(fault);
      },
    );
    void lease.exited.then((exit) => {
      this.#previousThread = attached.threadExit;
      void attached.threadExit.then(() => slot.release());
      // A worker released on purpose (hibernation, close) is no longer the session's: its end changes nothing.
      if (this.#lease !== lease) return;
      this.#lease = null;
      this.#clearIdleTimer();
      this.#deps.observer?.workerExited(exit.kind);
      if (exit.kind === "crashed") this.#log.error({ cause: exit.cause }, "session worker died: the session's next prompt restores it from its log");
      this.#replay?.fail(workerFault(this.id, `session worker died: ${exit.cause}`));
      const turn = this.#turn;
      if (!turn) return;
      if (turn.cancelRequested || this.#closed) this.#settleTurn(turn, { stopReason: "cancelled" });
      else this.#failTurn(turn, workerFault(this.id, `session worker died: ${exit.cause}`));
    });
    return attached;
  }

  /** Idle with a live worker: hand the slot over if a session waits for one, else hibernate after a while. */
  #wentIdle(): void {
    if (this.idleSince === null) return;
    this.#used();
    this.#deps.slots.idle(this);
    const ms = this.#deps.hibernateAfterMs;
    if (this.idleSince === null || ms === 0) return;
    this.#idleTimer = setTimeout(() => void this.hibernate(`idle for --hibernate-after-ms ${ms}`), ms);
    this.#idleTimer.unref();
  }

  #used(): void {
    this.#lastUsed = performance.now();
    this.#clearIdleTimer();
  }

  #clearIdleTimer(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }

  #onEvent(lease: WorkerLease, event: WorkerEvent): void {
    if (lease !== this.#lease) return;
    if (event.type === "pong") {
      if (this.#ping?.id === event.id) this.#ping = null;
      return;
    }
    if (event.type === "log") {
      this.#log[event.level](event.data ? foreignFields(event.data) : {}, event.msg);
      return;
    }
    if (event.turnId === REPLAY_TURN_ID) {
      if (!this.#replay) return;
      if (event.type === "turn_end") this.#replay.done();
      else for (const update of toSessionUpdates(event)) void this.send(update);
      return;
    }
    const turn = this.#turn;
    if (!turn || event.turnId !== turn.id) return;
    switch (event.type) {
      case "turn_end":
        this.#settleTurn(turn, { stopReason: turn.cancelRequested ? "cancelled" : event.stopReason });
        return;
      case "turn_error":
        if (turn.cancelRequested) this.#settleTurn(turn, { stopReason: "cancelled" });
        else this.#failTurn(turn, fromWorker(event.code, event.message));
        return;
      case "permission_request":
        void this.#askClient(lease, event);
        return;
      default:
        if (event.type === "usage" && event.session) this.#tokens = event.session;
        if (this.#deps.observer) this.#observeTool(event);
        for (const update of toSessionUpdates(event)) void this.send(update);
    }
  }

  /** Tool call timings for the metrics: from the call's announcement to its final update. */
  #observeTool(event: WorkerEvent): void {
    if (event.type === "tool_call") this.#toolStarts.set(event.toolCallId, { kind: event.kind, at: performance.now() });
    else if (event.type === "tool_call_update" && (event.status === "completed" || event.status === "failed")) {
      const started = this.#toolStarts.get(event.toolCallId);
      if (!started) return;
      this.#toolStarts.delete(event.toolCallId);
      this.#deps.observer?.toolCallEnded(started.kind, event.status === "failed", (performance.now() - started.at) / 1000);
    }
  }

  async #askClient(lease: WorkerLease, event: Extract<WorkerEvent, { type: "permission_request" }>): Promise<void> {
    const abort = new AbortController();
    this.#permissionRequests.set(event.requestId, abort);
    let outcome: PermissionOutcome = { outcome: "cancelled" };
    const peer = this.#attachment;
    try {
      await this.#sent;
      // A detached session has no one to ask: the call is refused as cancelled.
      if (peer && !abort.signal.aborted) {
        const request: RequestPermissionRequest = {
          sessionId: this.id,
          toolCall: { toolCallId: event.toolCallId, title: event.title, kind: event.kind, status: "pending", rawInput: event.rawInput },
          options: PERMISSION_OPTIONS,
        };
        const response = await peer.client.request("session/request_permission", request, {
          cancellationSignal: abort.signal,
          stopWaitingOnCancel: true,
        });
        const parsed = PermissionOutcome.safeParse(response.outcome);
        if (parsed.success) outcome = parsed.data;
        else this.#log.warn({ outcome: response.outcome }, "permission outcome not among the offered options: treated as cancelled");
      }
    } catch (error) {
      if (!abort.signal.aborted) this.#log.warn({ err: error }, "permission request failed: treated as cancelled");
    } finally {
      this.#permissionRequests.delete(event.requestId);
    }
    if (abort.signal.aborted) outcome = { outcome: "cancelled" };
    // The same port as the cancel, after it: the worker sees the cancel first and the turn does not go on.
    lease.post({ type: "permission", requestId: event.requestId, outcome });
  }

  #settleTurn(turn: Turn, response: PromptResponse): void {
    if (!this.#endTurn(turn.id, response.stopReason)) return;
    // All of a turn's updates go out before its response.
    void this.#sent.then(() => turn.resolve(response));
  }

  #failTurn(turn: Turn, error: Error): void {
    if (!this.#endTurn(turn.id, "error")) return;
    void this.#sent.then(() => turn.reject(error));
  }

  /** outcome: how the prompt is answered (a stop reason, or "error"); counted once, whoever ends the turn. */
  #endTurn(turnId: string, outcome: string): boolean {
    const turn = this.#turn;
    if (!turn || turn.id !== turnId) return false;
    if (turn.graceTimer) clearTimeout(turn.graceTimer);
    if (turn.timeoutTimer) clearTimeout(turn.timeoutTimer);
    this.#turn = null;
    this.#turnsAnswered++;
    // The worker refreshed the sidecar before it posted the turn's end.
    this.#deps.store.touched(this.id);
    this.#deps.observer?.turnEnded(outcome, (performance.now() - turn.startedAt) / 1000);
    this.#wentIdle();
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
    return true;
  }
}

function sameModel(a: ModelConfig, b: ModelConfig): boolean {
  const canonical = (model: ModelConfig) => JSON.stringify(model, Object.keys(model).sort());
  return canonical(a) === canonical(b);
}
