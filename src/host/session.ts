// One session as the main thread sees it: its worker lease, its prompt in flight, its permission requests.
// Everything that arrives on the lease's port belongs to this session and to no other.
import { randomUUID } from "node:crypto";
import {
  RequestError,
  type AgentContext,
  type PermissionOption,
  type PromptResponse,
  type RequestPermissionRequest,
  type SessionUpdate,
} from "@agentclientprotocol/sdk";
import { PermissionOutcome, PromptAck, type ModelConfig, type SessionModeId, type WorkerEvent, type WorkerInit } from "../protocol/port.js";
import type { WorkerPool } from "../pool/worker-pool.js";
import { WorkerGone, type WorkerLease } from "../pool/worker-lease.js";
import type { Logger } from "./logger.js";
import { toSessionUpdates } from "./updates.js";

export interface SessionSettings {
  cwd: string;
  mode: SessionModeId;
  model: ModelConfig;
}

export interface SessionDeps {
  pool: WorkerPool;
  client: AgentContext;
  log: Logger;
  cancelGraceMs: number;
  /** Builds the worker's init from the session's current settings. */
  workerInit(id: string, settings: SessionSettings): WorkerInit;
}

interface Turn {
  id: string;
  resolve(response: PromptResponse): void;
  reject(error: Error): void;
  cancelRequested: boolean;
  graceTimer: NodeJS.Timeout | null;
}

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always (this session, this tool)", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

export class SessionRecord {
  readonly id: string;
  readonly settings: SessionSettings;
  readonly #deps: SessionDeps;
  readonly #log: Logger;
  readonly #permissionRequests = new Map<string, AbortController>();
  #lease: WorkerLease | null = null;
  #turn: Turn | null = null;
  #sent: Promise<void> = Promise.resolve();
  #workersStarted = 0;
  #closed = false;

  constructor(id: string, settings: SessionSettings, deps: SessionDeps) {
    this.id = id;
    this.settings = settings;
    this.#deps = deps;
    this.#log = deps.log.child({ sessionId: id });
  }

  get busy(): boolean {
    return this.#turn !== null;
  }

  /** Leases a worker now so the first prompt finds it started. */
  start(): void {
    this.#worker();
  }

  async prompt(text: string): Promise<PromptResponse> {
    if (this.#closed) throw RequestError.invalidRequest(undefined, "session is closed");
    if (this.#turn) throw RequestError.invalidRequest(undefined, "a prompt is already in flight for this session");
    const lease = this.#worker();
    const turnId = randomUUID();
    const settled = new Promise<PromptResponse>((resolve, reject) => {
      this.#turn = { id: turnId, resolve, reject, cancelRequested: false, graceTimer: null };
    });
    let ack: PromptAck;
    try {
      ack = PromptAck.parse(await lease.call<unknown>((api) => api.prompt({ turnId, text })));
    } catch (error) {
      // The worker died before it took the prompt: the exit handler has settled the turn.
      if (error instanceof WorkerGone) return settled;
      this.#endTurn(turnId);
      throw error;
    }
    if (!ack.ok) {
      this.#endTurn(turnId);
      throw new RequestError(ack.code, ack.message);
    }
    return settled;
  }

  /** Cooperative cancel; the worker is terminated if the turn has not ended within the grace period. */
  cancel(): void {
    const turn = this.#turn;
    if (!turn || turn.cancelRequested) return;
    turn.cancelRequested = true;
    for (const request of this.#permissionRequests.values()) request.abort();
    const lease = this.#lease;
    if (!lease) return;
    lease.call((api) => api.cancel(turn.id)).catch(() => {});
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

  /** Settles a pending prompt as cancelled and releases the worker (graceful, then terminated). */
  async close(graceMs: number): Promise<void> {
    this.#closed = true;
    if (this.#turn) this.#settleTurn(this.#turn, { stopReason: "cancelled" });
    for (const request of this.#permissionRequests.values()) request.abort();
    await this.#releaseWorker(graceMs);
  }

  async #releaseWorker(graceMs: number): Promise<void> {
    const lease = this.#lease;
    this.#lease = null;
    if (!lease) return;
    const timeout = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([lease.call((api) => api.dispose()).catch(() => {}), timeout]);
    await lease.terminate();
  }

  /** Sends one update for this session; updates go out in the order they were sent. */
  send(update: SessionUpdate): Promise<void> {
    const sent = this.#sent.then(() => this.#deps.client.notify("session/update", { sessionId: this.id, update }));
    this.#sent = sent.catch((error: unknown) => this.#log.warn({ err: error }, "session/update not delivered"));
    return this.#sent;
  }

  #worker(): WorkerLease {
    if (this.#lease?.alive) return this.#lease;
    const lease = this.#deps.pool.lease(this.#deps.workerInit(this.id, this.settings));
    if (this.#workersStarted++ > 0) this.#log.info("session continues in a fresh worker with an empty history");
    this.#lease = lease;
    lease.listen(
      (events) => {
        for (const event of events) this.#onEvent(lease, event);
      },
      (error) => this.#log.error({ error }, "invalid message from session worker dropped"),
    );
    void lease.exited.then((exit) => {
      if (this.#lease === lease) this.#lease = null;
      const turn = this.#turn;
      if (exit.kind === "crashed") this.#log.error({ cause: exit.cause }, "session worker died");
      if (!turn) return;
      if (turn.cancelRequested || this.#closed) this.#settleTurn(turn, { stopReason: "cancelled" });
      else this.#failTurn(turn, RequestError.internalError(undefined, `session worker died: ${exit.cause}`));
    });
    return lease;
  }

  #onEvent(lease: WorkerLease, event: WorkerEvent): void {
    if (lease !== this.#lease) return;
    if (event.type === "log") {
      this.#log[event.level](event.data ?? {}, event.msg);
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
        else this.#failTurn(turn, new RequestError(event.code, event.message));
        return;
      case "permission_request":
        void this.#askClient(lease, event);
        return;
      default:
        for (const update of toSessionUpdates(event)) void this.send(update);
    }
  }

  async #askClient(lease: WorkerLease, event: Extract<WorkerEvent, { type: "permission_request" }>): Promise<void> {
    const abort = new AbortController();
    this.#permissionRequests.set(event.requestId, abort);
    let outcome: PermissionOutcome = { outcome: "cancelled" };
    try {
      await this.#sent;
      const request: RequestPermissionRequest = {
        sessionId: this.id,
        toolCall: { toolCallId: event.toolCallId, title: event.title, kind: event.kind, status: "pending", rawInput: event.rawInput },
        options: PERMISSION_OPTIONS,
      };
      const response = await this.#deps.client.request("session/request_permission", request, {
        cancellationSignal: abort.signal,
        stopWaitingOnCancel: true,
      });
      const parsed = PermissionOutcome.safeParse(response.outcome);
      if (parsed.success) outcome = parsed.data;
      else this.#log.warn({ outcome: response.outcome }, "permission outcome not among the offered options: treated as cancelled");
    } catch (error) {
      if (!abort.signal.aborted) this.#log.warn({ err: error }, "permission request failed: treated as cancelled");
    } finally {
      this.#permissionRequests.delete(event.requestId);
    }
    if (abort.signal.aborted) outcome = { outcome: "cancelled" };
    await lease.call((api) => api.resolvePermission(event.requestId, outcome)).catch(() => {});
  }

  #settleTurn(turn: Turn, response: PromptResponse): void {
    if (!this.#endTurn(turn.id)) return;
    // All of a turn's updates go out before its response.
    void this.#sent.then(() => turn.resolve(response));
  }

  #failTurn(turn: Turn, error: Error): void {
    if (!this.#endTurn(turn.id)) return;
    void this.#sent.then(() => turn.reject(error));
  }

  #endTurn(turnId: string): boolean {
    const turn = this.#turn;
    if (!turn || turn.id !== turnId) return false;
    if (turn.graceTimer) clearTimeout(turn.graceTimer);
    this.#turn = null;
    return true;
  }
}
