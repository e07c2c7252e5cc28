// What a session does with each event its worker posts: one table keyed by the event's type, one small handler each.
// The session's own events (a pong, a log line, an MCP server's status, its records for the store, its title, a model
// request's end, finished spans) are handled whatever runs; a turn's events go to the replay (session/load) or to the
// turn in flight, and those of any other turn (a late end of a cancelled turn) are dropped, so a turn is only ever
// settled from its own end.
import { providerWaitNotice } from "./provider-wait-notice.js";
import type { PromptResponse, RequestError } from "@agentclientprotocol/sdk/unstable";
import { REPLAY_TURN_ID, type ChildOutcome } from "../../protocol/port.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { SessionStatus } from "../../protocol/host-status.js";
import { MCP_STATUS_METHOD, type McpStatusNotification } from "../../protocol/mcp-status.js";
import type { WorkerLease } from "../../pool/worker-lease.js";
import { fromWorker } from "../../request-errors.js";
import { foreignFields, type Logger } from "../../logger.js";
import { LIST_META_KEY } from "../../store/listing.js";
import { costUsd, type Price } from "../../protocol/budget.js";
import type { SessionDeps } from "./session-deps.js";
import type { SessionOutbox } from "./session-outbox.js";
import type { PermissionRequests } from "./session-permissions.js";
import type { Replay } from "./session-replay.js";
import type { Turn, TurnSlot } from "./session-turn.js";
import type { SessionWorker } from "./session-worker.js";
import type { ToolTimings } from "./tool-timings.js";
import { numberedUpdates } from "./numbered-updates.js";

type EventType = WorkerEvent["type"];
type EventOf<T extends EventType> = Extract<WorkerEvent, { type: T }>;
/** An event of a turn (the replay's, or a prompt's). */
type TurnEvent = Extract<WorkerEvent, { turnId: string }>;
type Handler<T extends EventType> = (events: SessionEvents, event: EventOf<T>, lease: WorkerLease) => void;

/** What the events reach of their session. */
export interface SessionEventsContext {
  readonly id: string;
  readonly tenant: string | null;
  readonly logger: Logger;
  readonly deps: Pick<SessionDeps, "store" | "delegation" | "hooks">;
  readonly worker: Pick<SessionWorker, "fault">;
  readonly turns: TurnSlot;
  readonly permissions: PermissionRequests;
  readonly outbox: SessionOutbox;
  readonly toolTimings: ToolTimings;
  /** The session's model's prices now (--model-price), if it has any: usage_update's cost. */
  price(): Price | undefined;
  /** The replay in progress, if any. */
  replay(): Replay | null;
  /** The watchdog's ping was answered. */
  pong(id: number): void;
  /** The worker titled the session (from its first prompt). */
  titled(title: string): void;
  /** Ends this worker now if it is still the session's: the next prompt restores the session from its log. */
  drop(lease: WorkerLease): void;
  /** The worker broke the port's contract: what waits on it fails with the fault. */
  faulty(fault: RequestError): void;
}

export class SessionEvents {
  readonly #session: SessionEventsContext;
  #tokens: SessionStatus["tokens"] = null;
  #lastMessage = "";
  /** When its last update was shown (ms since the epoch): a listed session's live last activity. */
  #lastShownAt = Date.now();

  constructor(session: SessionEventsContext) {
    this.#session = session;
  }

  get lastShownAt(): number {
    return this.#lastShownAt;
  }

  /** Its token sums (from its usage events). */
  get tokens(): SessionStatus["tokens"] {
    return this.#tokens;
  }

  /**
   * The text of the last answered turn's final assistant message, when its prompt asked for it (a child's answer to
   * its parent's spawn_agent); held only until it is taken, since it may be large.
   */
  takeLastMessage(): string {
    const text = this.#lastMessage;
    this.#lastMessage = "";
    return text;
  }

  /** Events from the session's current worker, in the order it posted them. */
  handle(lease: WorkerLease, event: WorkerEvent): void {
    (SessionEvents.#table[event.type] as Handler<EventType>)(this, event, lease);
  }

  static readonly #table: { [T in EventType]: Handler<T> } = {
    pong: (events, event) => events.#session.pong(event.id),
    log_line: (events, event) => events.#logLine(event),
    mcp_status: (events, event) => events.#mcpStatus(event),
    log_records: (events, event, lease) => events.#record(lease, event),
    log_summary: (events, event, lease) => events.#record(lease, event),
    log_snapshot: (events, event, lease) => events.#record(lease, event),
    title: (events, event) => events.#session.titled(event.title),
    model_call: (events, event) => events.#modelCall(event),
    spans: (events, event) =>
      events.#session.deps.hooks.emit("spansEnded", { sessionId: events.#session.id, spans: event.spans }),
    turn_end: (events, event, lease) => events.#turnEnd(lease, event),
    turn_error: (events, event, lease) => events.#turnError(lease, event),
    permission_request: (events, event, lease) => events.#permissionRequest(lease, event),
    child_request: (events, event, lease) => events.#childRequest(lease, event),
    usage: (events, event) => events.#usage(event),
    assistant_message: (events, event) => events.#update(event),
    user_message: (events, event) => events.#update(event),
    thought: (events, event) => events.#update(event),
    provider_wait: (events, event) => events.#providerWait(event),
    plan: (events, event) => events.#update(event),
    compaction: (events, event) => events.#update(event),
    tool_call: (events, event) => events.#update(event),
    tool_call_update: (events, event) => events.#update(event),
  };

  /** A request to the model ended: counted by tenant and model (the metrics, `_host/status`). */
  #modelCall({ model, outcome, tokens }: EventOf<"model_call">): void {
    const { id, tenant, deps } = this.#session;
    deps.hooks.emit("modelCallEnded", { sessionId: id, tenant, model, outcome, tokens });
  }

  /** A notice to the clients that advertised session.notices: the turn's request waits on its provider. */
  #providerWait(event: EventOf<"provider_wait">): void {
    if (!this.#ownTurn(event)) return;
    void this.#session.outbox.send(providerWaitNotice(event), "notices");
  }

  #logLine(event: EventOf<"log_line">): void {
    this.#session.logger[event.level](event.data ? foreignFields(event.data) : {}, event.msg);
  }

  #mcpStatus({ server, status, tools, message }: EventOf<"mcp_status">): void {
    this.#session.logger[status === "failed" ? "warn" : "info"](
      { server, status, tools: tools.length, message },
      "MCP server status",
    );
    void this.#session.outbox.notify(MCP_STATUS_METHOD, {
      sessionId: this.#session.id,
      server,
      status,
      tools,
      message,
    } satisfies McpStatusNotification);
  }

  /** A record, summary or snapshot of a session whose store the host writes: handed to the store's writer, in order. */
  #record(lease: WorkerLease, event: EventOf<"log_records" | "log_summary" | "log_snapshot">): void {
    const writer = this.#session.deps.store.writer(this.#session.id);
    if (!writer) {
      this.#session.faulty(
        this.#session.worker.fault(lease, "event", `${event.type} from a worker whose session log it writes itself`),
      );
      return;
    }
    if (event.type === "log_records") writer.append(event.from, event.lines, event.replayable);
    else if (event.type === "log_summary") writer.summary(event.turns, event.title);
    else writer.snapshot(event.seq, event.snapshot);
  }

  #turnEnd(lease: WorkerLease, event: EventOf<"turn_end">): void {
    if (event.turnId === REPLAY_TURN_ID) return this.#session.replay()?.done();
    const turn = this.#ownTurn(event);
    if (!turn) return;
    this.#lastMessage = event.lastMessage ?? "";
    if (turn.cancelRequested) return this.#settleDurable(lease, turn, { stopReason: "cancelled" });
    // A turn its budget ended says so (docs/models.md, Budgets): the client may raise it with _host/set_budget.
    const budget = event.reason ? { _meta: { [LIST_META_KEY]: { reason: event.reason } } } : {};
    this.#settleDurable(lease, turn, { stopReason: event.stopReason, ...budget });
  }

  #turnError(lease: WorkerLease, event: EventOf<"turn_error">): void {
    const turn = this.#ownTurn(event);
    if (!turn) return;
    // Dropped before the answer goes out: a prompt sent on that answer must find no worker and wake a fresh one.
    if (event.workerEnds) {
      this.#session.logger.warn(
        { cause: event.message },
        "session worker ends: the session's next prompt restores it from its log",
      );
      this.#session.drop(lease);
    }
    const { turns, outbox } = this.#session;
    if (turn.cancelRequested) turns.settle(turn.id, { stopReason: "cancelled" }, outbox.drained);
    else turns.fail(turn.id, fromWorker(event.reason, event.message), outbox.drained);
  }

  #permissionRequest(lease: WorkerLease, event: EventOf<"permission_request">): void {
    if (this.#ownTurn(event)) void this.#askClient(lease, event);
  }

  #childRequest(lease: WorkerLease, event: EventOf<"child_request">): void {
    if (this.#ownTurn(event)) void this.#delegate(lease, event);
  }

  #usage(event: EventOf<"usage">): void {
    if (!this.#ownTurn(event)) return;
    if (event.session) this.#tokens = event.session;
    this.#session.toolTimings.see(event);
    const price = this.#session.price();
    this.#show(price && event.session ? { ...event, costUsd: costUsd(price, event.session) } : event);
  }

  /** An event the client sees as session/update notifications. */
  #update(event: TurnEvent): void {
    if (!this.#ownTurn(event)) return;
    this.#session.toolTimings.see(event);
    this.#show(event);
  }

  /**
   * The turn in flight, if event is its own; null for an event of another turn (a late one of a cancelled turn is
   * dropped) and for a replay's, which is shown while the replay runs (its end ends the replay: see #turnEnd).
   */
  #ownTurn(event: TurnEvent): Turn | null {
    if (event.turnId === REPLAY_TURN_ID) {
      if (this.#session.replay()) this.#show(event);
      return null;
    }
    const turn = this.#session.turns.current;
    return turn && event.turnId === turn.id ? turn : null;
  }

  /** Numbered and shown: session/load's replay to the owner only, a turn's live to every client of the session. */
  #show(event: TurnEvent): void {
    this.#lastShownAt = Date.now();
    const outbox = this.#session.outbox;
    const replay = event.turnId === REPLAY_TURN_ID ? this.#session.replay() : null;
    if (replay) void outbox.showOwner(numberedUpdates(event, replay.clock, outbox));
    else void outbox.publish(numberedUpdates(event, outbox.clock, outbox));
  }

  /** spawn_agent: the host makes or reuses the child and runs the prompt there; the worker is told how it went. */
  async #delegate(lease: WorkerLease, request: EventOf<"child_request">): Promise<void> {
    const delegation = this.#session.deps.delegation;
    const outcome: ChildOutcome = delegation
      ? await delegation.run(this.#session.id, request)
      : { ok: false, sessionId: null, error: "spawn_agent refused: this host does not make child sessions" };
    lease.post({ type: "child_result", requestId: request.requestId, outcome });
  }

  async #askClient(lease: WorkerLease, event: EventOf<"permission_request">): Promise<void> {
    const { permissions, outbox } = this.#session;
    // A session without a controller has no one to ask: the call is refused as cancelled.
    const outcome = await permissions.ask(outbox.controllers(), event, outbox.drained);
    // The same port as the cancel, after it: the worker sees the cancel first and the turn does not go on.
    lease.post({ type: "permission", requestId: event.requestId, outcome });
  }

  /**
   * A turn the worker ended: where the host commits the session's records, it is answered only once they are
   * committed; if they cannot be, the turn fails with the store's error and the worker, whose memory then holds what
   * the log does not, is dropped (the next prompt restores the session from what was committed).
   */
  #settleDurable(lease: WorkerLease, turn: Turn, response: PromptResponse): void {
    const { turns, outbox, deps, logger } = this.#session;
    const writer = deps.store.writer(this.#session.id);
    if (!writer) {
      turns.settle(turn.id, response, outbox.drained);
      return;
    }
    const committed = writer.committed().catch((error: unknown) => {
      logger.warn(
        { err: error },
        "the session's records could not be committed: its worker is dropped, the next prompt restores it from the store",
      );
      this.#session.drop(lease);
      throw error;
    });
    turns.settle(turn.id, response, Promise.all([outbox.drained, committed]));
  }
}
