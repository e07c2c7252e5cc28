// One session as the main thread sees it, made of parts with one job each: its phase (SessionPhaseMachine), its worker
// (SessionWorker), the commands relayed to it (WorkerRelays), what its events do (SessionEvents), its prompt in flight
// (TurnSlot), its permission requests, its replay, and where its updates go (SessionOutbox). Everything that arrives
// on its worker's port belongs to this session and to no other. The session is its log: the worker is leased when
// needed and restored from the log (after a crash, a hard cancel, or hibernation, which releases the worker of an
// idle session), so a session outlives any one worker.
import type { Priority, Share } from "../../protocol/gateway-asks.js";
import type { Budget } from "../../protocol/budget.js";
import type { PromptResponse, RequestError, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import * as Comlink from "comlink";
import type { HostMessage, ModelConfig, ReplayedRecords, SessionModeId } from "../../protocol/port.js";
import { ReplayAck, ReplayPage } from "../../protocol/worker-events.js";
import type { LogHeader } from "../../protocol/log/session-log.js";
import type { SystemPromptSetting } from "../../protocol/system-prompt.js";
import type { SessionStatus } from "../../protocol/host-status.js";
import type { LiveListing } from "../../store/listing.js";
import { nowMs, type TurnTrace } from "../../protocol/trace.js";
import type { McpServerConfig } from "../../protocol/mcp-servers.js";
import { WorkerGone, type WorkerExit, type WorkerLease } from "../../pool/worker-lease.js";
import { hostError, invalidParams, promptInFlight, sessionClosed, workerFault } from "../../request-errors.js";
import type { Logger } from "../../logger.js";
import type { SessionDeps, SessionSettings } from "./session-deps.js";
import type { Peer } from "../connection/peer.js";
import { SessionEvents } from "./session-events.js";
import { SessionOutbox } from "./session-outbox.js";
import { PermissionRequests } from "./session-permissions.js";
import { WorkerRelays } from "./session-relays.js";
import { Replay } from "./session-replay.js";
import { Attachment } from "../attach/attachment.js";
import {
  PARTICIPANTS_PAGE,
  TURN_ENDED_NOTIFICATION,
  type AttachResponse,
  type AttachRole,
  type ReplayFrom,
  type TurnEndedNotification,
} from "../../protocol/attach.js";
import {
  compareEventPositions,
  EventClock,
  formatEventId,
  parseEventId,
  type EventPosition,
} from "../../protocol/event-id.js";
import { numberedUpdates } from "./numbered-updates.js";
import { SessionPhaseMachine } from "./session-phase.js";
import { TurnSlot, type Turn } from "./session-turn.js";
import { PingWatch } from "./session-watchdog.js";
import { SessionWorker } from "./session-worker.js";
import { ToolTimings } from "./tool-timings.js";
import type { SlotHolder } from "./worker-slots.js";

/** How long a status row waits for its worker's figures. */
const STATUS_WAIT_MS = 250;

/** An idle worker has nothing to finish: its dispose is quick. */
const HIBERNATE_GRACE_MS = 1000;

/** Where a session stands in a tree of sessions (child sessions, made by a parent's spawn_agent). */
export interface SessionLineage {
  /** A child's parent; null for a session a client made. */
  parentId: string | null;
  /** 0 for a session a client made, its parent's + 1 for a child. */
  depth: number;
  /** A child's widest mode: the one its header was created with (its parent's or narrower then); null: no ceiling. */
  modeCeiling: SessionModeId | null;
}

export const ROOT_LINEAGE: SessionLineage = { parentId: null, depth: 0, modeCeiling: null };

/** A stored session's lineage, from its header: a child's ceiling is the mode it was made with. */
export function lineageOf(header: LogHeader): SessionLineage {
  return header.parent
    ? { parentId: header.parent.sessionId, depth: header.parent.depth, modeCeiling: header.mode }
    : ROOT_LINEAGE;
}

export interface SessionOptions {
  /** The session comes from the state dir (session/load, resume) rather than session/new. */
  stored?: boolean;
  /** Whose it is (from its log header); null: no tenant, only tenantless peers see it. */
  tenant?: string | null;
  lineage?: SessionLineage;
  /** The title session/list shows now; null: none yet (its first prompt gives it one). */
  title?: string | null;
  /** Its place in the model gateway's fair share: its tree (a child's is its parent's) and priority (interactive). */
  place?: { tree?: string; priority: Priority; budget?: Budget };
  /**
   * Where its updates go while no connection has attached it itself: a child's go to its parent's connection when that
   * client understands subagents.
   */
  follow?: () => SessionOutbox | null;
}

export class LiveSession implements SlotHolder {
  readonly id: string;
  readonly settings: SessionSettings;
  readonly tenant: string | null;
  readonly lineage: SessionLineage;
  /** Whose its model requests are in the model gateway's fair share. */
  readonly share: Share;
  readonly #deps: SessionDeps;
  readonly #logger: Logger;
  readonly #state: SessionPhaseMachine;
  readonly #worker: SessionWorker;
  readonly #relays: WorkerRelays;
  readonly #events: SessionEvents;
  readonly #turns: TurnSlot;
  readonly #permissions: PermissionRequests;
  readonly #outbox: SessionOutbox;
  readonly #pings = new PingWatch();
  #replay: Replay | null = null;
  /** Settles once close has (set by the close transition). */
  #closing: Promise<void> = Promise.resolve();
  #idleTimer: NodeJS.Timeout | null = null;
  #lastUsed = performance.now();
  #title: string | null;
  /** How the last turn answered in this host ("error": it failed); null: none yet. */
  #lastStopReason: string | null = null;
  /** Attached clients' replays being paged: the worker they read stays. */
  #pagedReplays = 0;
  /** The client's id of the prompt of the turn in flight, else of the last one (null: none given). */
  #promptId: string | null = null;

  constructor(id: string, settings: SessionSettings, deps: SessionDeps, options: SessionOptions = {}) {
    this.id = id;
    this.settings = settings;
    this.tenant = options.tenant ?? null;
    this.lineage = options.lineage ?? ROOT_LINEAGE;
    this.share = {
      tenant: this.tenant,
      tree: options.place?.tree ?? this.lineage.parentId ?? id,
      priority: options.place?.priority ?? "interactive",
      ...(options.place?.budget ? { budget: options.place.budget } : {}),
    };
    this.#title = options.title ?? null;
    this.#deps = deps;
    this.#logger = deps.logger.child({ sessionId: id });
    this.#state = new SessionPhaseMachine((phase, event) =>
      this.#logger.error({ phase, event }, "session state: no such transition (a bug): the phase stays as it was"),
    );
    this.#turns = new TurnSlot((outcome, seconds) => {
      // The worker refreshed the sidecar before it posted the turn's end.
      this.#deps.store.touched(this.id);
      // Whatever ended the turn, the children's turns it started end with it (child sessions listen).
      this.#deps.hooks.emit("turnEnded", { sessionId: this.id, outcome, seconds });
      this.#lastStopReason = outcome;
      this.#outbox.turnEnded();
      const promptId = this.#promptId;
      // After the turn's updates: a controller whose prompt's connection dropped learns how it ended.
      void this.#outbox.drained.then(() =>
        this.#outbox.notifyAttached(TURN_ENDED_NOTIFICATION, {
          sessionId: this.id,
          stopReason: outcome,
          lastEventId: formatEventId(this.#outbox.clock.last),
          promptId,
        } satisfies TurnEndedNotification),
      );
      this.#wentIdle();
    });
    this.#permissions = new PermissionRequests(id, this.#logger);
    this.#outbox = new SessionOutbox(id, this.#logger, options.follow);
    this.#worker = new SessionWorker(
      id,
      settings,
      deps,
      this.#logger,
      {
        holder: this,
        share: this.share,
        onEvents: (lease, events) => {
          this.#outbox.batched(() => {
            for (const event of events) if (lease === this.#worker.current) this.#events.handle(lease, event);
          });
          // Updates go out in order: once these have, so has everything these events sent.
          return this.#outbox.drained;
        },
        onFault: (fault) => this.#onFaulty(fault),
        onExit: (exit, whileOpening) => this.#workerExited(exit, whileOpening),
        onOpened: (shown) => this.#outbox.clock.restored(shown),
        onWoken: () => this.#wentIdle(),
      },
      this.#state,
      options.stored ?? false,
    );
    this.#relays = new WorkerRelays(this.#state, () => this.#worker.live, this.#logger);
    this.#events = new SessionEvents({
      id,
      tenant: this.tenant,
      price: () => this.settings.model.price,
      logger: this.#logger,
      deps,
      worker: this.#worker,
      turns: this.#turns,
      permissions: this.#permissions,
      outbox: this.#outbox,
      toolTimings: new ToolTimings(id, deps.hooks),
      replay: () => this.#replay,
      pong: (ping) => this.#pings.pong(ping),
      titled: (title) => this.#titled(title),
      drop: (lease) => {
        if (lease === this.#worker.current) void this.#release(0);
      },
      faulty: (fault) => this.#onFaulty(fault),
    });
  }

  get busy(): boolean {
    return this.#turns.current !== null;
  }

  /** Whether turnId is the turn in flight and nobody has asked to cancel it. */
  runs(turnId: string): boolean {
    const turn = this.#turns.current;
    return turn?.id === turnId && !turn.cancelRequested;
  }

  /** The connection that owns it (session/new, load, resume); attached clients are not among them. */
  get attachment(): Peer | null {
    return this.#outbox.attachment;
  }

  /** Where its updates go: a child session's outbox follows its parent's. */
  get outbox(): SessionOutbox {
    return this.#outbox;
  }

  /** Whether anyone is there: an open owning connection, or a client attached. */
  get attended(): boolean {
    const owner = this.#outbox.attachment;
    return (owner !== null && !owner.closed) || this.#outbox.attachments.some((attachment) => !attachment.ended);
  }

  /** How many clients are attached to it (session/attach), not ended. */
  get attachedClients(): number {
    let count = 0;
    for (const attachment of this.#outbox.attachments) if (!attachment.ended) count++;
    return count;
  }

  /** Whether a client is attached to it as a controller (another host of the fleet may not take it meanwhile). */
  get controlledByAttached(): boolean {
    return this.#outbox.attachments.some((attachment) => attachment.role === "controller" && !attachment.ended);
  }

  /** The observers attached, taken off the session (it is leaving this host): they go on following it elsewhere. */
  releaseObservers(): Attachment[] {
    const observers = this.#outbox.attachments.filter(
      (attachment) => attachment.role === "observer" && !attachment.ended,
    );
    for (const observer of observers) this.#outbox.remove(observer);
    return observers;
  }

  /** The peer's role on this session: owner, an attached role, or none. */
  roleOf(peer: Peer): "owner" | AttachRole | null {
    if (this.#outbox.attachment === peer) return "owner";
    let role: AttachRole | null = null;
    for (const attachment of this.#outbox.attachments)
      if (attachment.peer === peer && !attachment.ended && role !== "controller") role = attachment.role;
    return role;
  }

  /**
   * session/attach: the peer receives the session's updates from now on (after its replay, if it asked for one) through
   * a queue of its own. The owning connection that attaches stops being the owner: its updates come this way instead.
   */
  async attachClient(
    peer: Peer,
    role: AttachRole,
    from: ReplayFrom | undefined,
    maxQueuedBytes: number,
  ): Promise<Omit<AttachResponse, "hostId">> {
    if (this.#state.closed) throw sessionClosed();
    let cursor: EventPosition | null = null;
    if (from?.type === "after_event") {
      cursor = parseEventId(from.eventId);
      if (!cursor) throw invalidParams("replayFrom.eventId", `not an event id of this host: ${from.eventId}`);
      if (compareEventPositions(cursor, this.#outbox.clock.last) > 0)
        throw hostError(
          "CURSOR_GAP",
          `session ${this.id}'s log holds no event ${from.eventId} (its last is ${formatEventId(this.#outbox.clock.last)}): attach with replayFrom start`,
          { sessionId: this.id, lastEventId: formatEventId(this.#outbox.clock.last) },
        );
    }
    const outbox = this.#outbox;
    const attachment = new Attachment(this.id, peer, role, {
      maxQueuedBytes,
      logger: this.#logger,
      onEnd: (ended) => outbox.remove(ended),
    });
    if (outbox.detach(peer))
      this.#logger.info(
        { connection: peer.label },
        "owning connection attached: its updates come through its attachment",
      );
    outbox.add(attachment);
    // A controller is asked what waits for an answer now too, once its attach has been answered.
    if (role === "controller") setImmediate(() => !attachment.ended && this.#permissions.offerTo(peer));
    const answer = (): Omit<AttachResponse, "hostId"> => ({
      attachmentId: attachment.id,
      role,
      lastEventId: attachment.lastEventId,
      ...participantsPage(attachment, outbox.attachments),
      turnRunning: this.busy,
      lastStopReason: this.#lastStopReason,
      promptId: this.#promptId,
      mode: this.settings.mode,
      model: this.settings.model.model,
    });
    if (!from) {
      attachment.startAfter(outbox.clock.last);
      attachment.goLive();
      return answer();
    }
    if (cursor) attachment.startAfter(cursor);
    const recent = cursor ? outbox.recentAfter(cursor) : null;
    if (recent) {
      for (const shown of recent) attachment.replayed(shown);
      attachment.goLive();
      return answer();
    }
    try {
      await this.#replayTo(attachment, cursor ? cursor[0] : 0, Math.max(1, Math.floor(maxQueuedBytes / 2)));
    } catch (error) {
      attachment.end();
      // Closed while its replay was read: the worker it read through ended with it, which is not a worker's fault.
      throw this.#state.closed ? sessionClosed() : error;
    }
    if (this.#state.closed) {
      attachment.end();
      throw sessionClosed();
    }
    return answer();
  }

  /** session/detach: idempotent; the session and its turn go on. false: no such attachment of this peer. */
  detachClient(peer: Peer, attachmentId: string): boolean {
    const attachment = this.#outbox.find(attachmentId);
    if (!attachment || attachment.peer !== peer) return false;
    attachment.end();
    return true;
  }

  /** The peer's connection closed: its attachments end (the session and its turn go on). Whether it had any. */
  dropAttachmentsOf(peer: Peer): boolean {
    let had = false;
    for (const attachment of this.#outbox.attachments)
      if (attachment.peer === peer) {
        attachment.end();
        had = true;
      }
    return had;
  }

  /**
   * Replays the log from entry `fromSeq` to one attached client, page by page as it takes them (asked of the worker
   * as answers, so a turn running beside it never waits for that client), then lets its live updates follow.
   */
  async #replayTo(attachment: Attachment, fromSeq: number, pageBytes: number): Promise<void> {
    this.#pagedReplays++;
    try {
      const lease = await this.#worker.wake();
      const clock = new EventClock();
      let older: ReplayedRecords | undefined;
      for (let skip = 0; !attachment.ended;) {
        const page = ReplayPage.safeParse(
          await lease.call<unknown>((api) => api.replayPage(older, fromSeq, skip, pageBytes)),
        );
        if (!page.success) throw this.#worker.fault(lease, "reply to replay", page.error.message);
        if (page.data.recordsBefore !== undefined) {
          older = await this.#olderRecords(lease, page.data.recordsBefore);
          continue;
        }
        for (const event of page.data.events)
          for (const shown of numberedUpdates(event, clock, this.#outbox)) attachment.replayed(shown);
        skip += page.data.events.length;
        if (skip >= page.data.total) {
          // Then what the running turn showed that its log does not hold yet: a running command's output so far.
          for (const shown of this.#outbox.unloggedOfTurn) attachment.replayed(shown);
          break;
        }
        if (!(await attachment.drainedWithin(this.#deps.replayStallMs))) {
          attachment.endWith(
            "OBSERVER_TOO_SLOW",
            `this client read none of its replay for ${this.#deps.replayStallMs} ms (--max-output-stall-ms): detached; attach again after event ${attachment.lastEventId ?? "(none)"}`,
          );
          break;
        }
      }
    } catch (error) {
      if (error instanceof WorkerGone)
        throw workerFault(this.id, `session worker died while replaying: ${error.exit.cause}`);
      throw error;
    } finally {
      this.#pagedReplays--;
      attachment.goLive();
      this.#wentIdle();
    }
  }

  /** The title session/list shows (null: none yet). */
  get title(): string | null {
    return this.#title;
  }

  /** A client set the title (stored already): it is the session's from now on, and its client is told. */
  async setTitle(title: string): Promise<void> {
    this.#title = title;
    await this.send({ sessionUpdate: "session_info_update", title });
  }

  /** Resolves once no prompt is in flight. */
  whenIdle(): Promise<void> {
    return this.#turns.whenIdle();
  }

  /** From now on the session's updates go to this peer (session/new, load, resume, a takeover). */
  attach(peer: Peer): void {
    this.#outbox.attach(peer);
  }

  /**
   * Its connection is gone: a running turn goes on and is journaled, but what it sends reaches no one (the log
   * has it), and a permission it asks for is answered cancelled unless a controller is attached to answer it.
   */
  detach(peer: Peer): void {
    if (this.#outbox.detach(peer) && this.#outbox.controllers().length === 0) this.#permissions.abortAll();
  }

  /** When it was last used, while it holds a live worker that nothing is using (so it may hibernate); else null. */
  get idleSince(): number | null {
    return this.#idleWorker() ? this.#lastUsed : null;
  }

  /** No worker: the next prompt restores the session from its log. */
  get hibernated(): boolean {
    return this.#state.hibernated;
  }

  /** Its opened worker while nothing uses it (no turn, no replay). */
  #idleWorker(): WorkerLease | null {
    return this.#turns.current || this.#replay || this.#pagedReplays > 0 ? null : this.#worker.live;
  }

  /** Leases a worker now, if one is free without hibernating anyone, so the first prompt finds it started. */
  start(): void {
    // A session closed before its turn to start (a burst of session/new, then close) needs no worker.
    if (this.#state.closed || !this.#deps.slots.free) return;
    this.#worker.wake().catch((error: unknown) => this.#logger.warn({ err: error }, "session worker did not start"));
  }

  /** Opens the session in a worker, restored from its log, without replaying it (session/resume). */
  async restore(): Promise<void> {
    await this.#worker.wake();
  }

  /** Sends the session's history as session/update notifications and resolves once all are out (session/load). */
  async replayHistory(): Promise<void> {
    if (this.#state.closed) throw sessionClosed();
    if (this.#turns.current)
      throw hostError("PROMPT_IN_FLIGHT", "a prompt is in flight for this session: load it once the prompt has ended", {
        sessionId: this.id,
      });
    if (this.#replay) throw hostError("SESSION_BUSY", "this session is being loaded already", { sessionId: this.id });
    const replay = new Replay();
    this.#replay = replay;
    this.#used();
    try {
      const lease = await this.#worker.wake();
      await this.#replayFrom(lease);
      await replay.finished;
      await this.#outbox.drained;
    } catch (error) {
      if (error instanceof WorkerGone)
        throw workerFault(this.id, `session worker died while replaying: ${error.exit.cause}`);
      throw error;
    } finally {
      this.#replay = null;
      this.#wentIdle();
    }
  }

  /**
   * Asks the worker to replay; a worker of a compacted session on a store the host writes asks first for the
   * records it no longer holds, read from the store (after what it appended so far is committed).
   */
  async #replayFrom(lease: WorkerLease): Promise<void> {
    let older: ReplayedRecords | undefined;
    for (;;) {
      const ack = ReplayAck.safeParse(await lease.call<unknown>((api) => api.replay(older)));
      if (!ack.success) throw this.#worker.fault(lease, "reply to replay", ack.error.message);
      const seq = ack.data.recordsBefore;
      if (seq === undefined) return;
      older = await this.#olderRecords(lease, seq);
    }
  }

  /** The records before seq, read from the store the host writes (after what the worker appended is committed). */
  async #olderRecords(lease: WorkerLease, seq: number): Promise<ReplayedRecords> {
    const writer = this.#deps.store.writer(this.id);
    if (!writer)
      throw this.#worker.fault(lease, "reply to replay", "it asked for records from a store it writes itself");
    await writer.committed();
    return { seq, records: await writer.replayedBefore(seq) };
  }

  /**
   * The watchdog's look at an idle session's worker: a ping unanswered for stallMs means its event loop is blocked
   * (or the thread is gone astray); the worker is ended and the next prompt restores the session from its log.
   * A session with a turn running is the cancel grace's business, not this.
   */
  checkAlive(stallMs: number, now: number): void {
    if (!this.#pings.stalled(this.#idleWorker(), stallMs, now)) return;
    this.#logger.warn(
      { threadId: this.#worker.lastThreadId, stallMs },
      "session worker did not answer a ping for --worker-stall-ms: terminated, the next prompt restores the session from its log",
    );
    void this.#release(0);
  }

  /** What session/list adds for a session open here: its state now and its last activity (a streaming turn's too). */
  listing(): LiveListing {
    const state = this.#permissions.waiting
      ? "waiting"
      : this.#turns.current
        ? "running"
        : this.#lastStopReason === "error"
          ? "failed"
          : this.hibernated
            ? "hibernated"
            : "idle";
    return {
      state,
      lastActivityAt: new Date(this.#events.lastShownAt).toISOString(),
      mode: this.settings.mode,
      model: this.settings.model.model,
    };
  }

  /**
   * The session's row in `_host/status`: its worker's own figures are asked for, and left out if it is slow (or, with
   * askWorker false, left out and not asked for).
   */
  async status(now: number, askWorker = true): Promise<SessionStatus> {
    const threadId = this.#worker.threadId;
    const lease = threadId === null ? null : this.#worker.live;
    const figures =
      lease && askWorker
        ? await Promise.race([
            lease.call((api) => api.stats()).catch(() => null),
            new Promise<null>((resolve) => setTimeout(resolve, STATUS_WAIT_MS, null)),
          ])
        : null;
    return {
      sessionId: this.id,
      state: this.#turns.current ? "busy" : this.hibernated ? "hibernated" : "live",
      threadId: lease ? threadId : null,
      workerActiveMs: figures ? figures.activeMs : null,
      heapUsedMiB: figures ? figures.heapUsedBytes / 2 ** 20 : null,
      waitingForPermission: this.#permissions.waiting,
      turns: this.#turns.answered,
      idleMs: Math.max(0, now - this.#lastUsed),
      tokens: this.#events.tokens,
    };
  }

  /** The host restarted its model gateway: the live worker gets a new port (a later worker gets one when it is made). */
  reconnectGateway(): Promise<void> {
    return this.#relays.tell({
      name: "reconnectGateway",
      send: async (api) => {
        const port = this.#deps.gatewayPort?.(this.id, this.share);
        if (port) await api.reconnectGateway(Comlink.transfer(port, [port]));
      },
    });
  }

  /** The host restarted its spawner: the live worker gets a fresh grant (a later worker gets one when it is made). */
  regrant(): Promise<void> {
    return this.#relays.tell({
      name: "regrant",
      send: async (api) => {
        const grant = this.#deps.grantFor?.(this.id, this.settings.cwd);
        if (grant) await api.regrant(grant);
      },
    });
  }

  /**
   * Another session's workspace now lies inside this one: its worker's file tools refuse it, as bash's sandbox
   * masks it. Resolves once the session's worker has it (a worker drawn later lists it in its init).
   */
  hide(path: string): Promise<void> {
    return this.#relays.tell({ name: "hide", send: (api) => api.hide(path) });
  }

  /** Releases the worker if nothing uses it; the next prompt restores the session from its log. */
  hibernate(reason: string): Promise<void> {
    if (this.idleSince === null) return this.#worker.released;
    this.#logger.info({ reason }, "session hibernated: worker released, the next prompt restores it from its log");
    const startedAtMs = nowMs();
    return this.#release(HIBERNATE_GRACE_MS).finally(() =>
      this.#deps.hooks.emit("hibernated", { sessionId: this.id, reason, startedAtMs }),
    );
  }

  /**
   * trace: the turn's span, when it is traced: the worker's spans hang under it. lastMessage: the turn's end brings
   * the text of its last message (takeLastMessage). promptId: the client's id for it (PROMPT_ID_META_KEY).
   */
  async prompt(
    text: string,
    trace: TurnTrace | null = null,
    lastMessage = false,
    promptId: string | null = null,
  ): Promise<PromptResponse> {
    if (this.#state.closed) throw sessionClosed();
    if (this.#turns.current) throw promptInFlight();
    if (this.#replay)
      throw hostError("SESSION_BUSY", "the session is being loaded: prompt it once session/load has answered", {
        sessionId: this.id,
      });
    const { turn, answer } = this.#turns.begin();
    this.#promptId = promptId;
    this.#used();
    const timeoutMs = this.#deps.turnTimeoutMs;
    if (timeoutMs > 0) {
      turn.timeoutTimer = setTimeout(() => {
        this.#logger.warn({ turnTimeoutMs: timeoutMs }, "turn ran past --turn-timeout-ms: cancelled");
        this.cancel(`the turn ran longer than --turn-timeout-ms ${timeoutMs}`);
      }, timeoutMs);
    }
    let lease: WorkerLease;
    try {
      lease = await this.#worker.wake();
    } catch (error) {
      // Unless the turn was settled meanwhile (closed; the worker died while opening), this error is its answer.
      if (this.#turns.abandon(turn.id)) throw error;
      return answer;
    }
    if (!this.#turns.holds(turn.id)) return answer;
    // Cancelled while its worker started: the worker still has it, cancelled from its start, so its prompt and its
    // cancelled end are in the log like any other cancelled turn's.
    const cancelled = turn.cancelRequested
      ? { cancelled: turn.cancelReason === undefined ? {} : { reason: turn.cancelReason } }
      : {};
    // The worker answers with the turn's events: turn_end, or turn_error (a refusal among them).
    const message: HostMessage = trace
      ? { type: "prompt", turnId: turn.id, text, trace: trace.parent, traceContent: trace.content, ...cancelled }
      : { type: "prompt", turnId: turn.id, text, ...cancelled };
    if (lastMessage) message.lastMessage = true;
    lease.post(message);
    // Its cancel grace runs from now, as for a cancel of a running turn.
    if (turn.cancelRequested) this.#sendCancel(turn, lease);
    return answer;
  }

  /** A prompt from the session's parent (spawn_agent): its answer, and the text of the turn's final message. */
  async promptAsChild(
    text: string,
    trace: TurnTrace | null = null,
  ): Promise<{ response: PromptResponse; lastMessage: string }> {
    const response = await this.prompt(text, trace, true);
    return { response, lastMessage: this.#events.takeLastMessage() };
  }

  /**
   * Cooperative cancel; the worker is terminated if the turn has not ended within the grace period. reason: why the
   * host cancels it (recorded in the log), none for the client's session/cancel.
   */
  cancel(reason?: string): void {
    const turn = this.#turns.current;
    if (!turn || turn.cancelRequested) return;
    turn.cancelRequested = true;
    if (reason !== undefined) turn.cancelReason = reason;
    this.#permissions.abortAll();
    // Its children's turns are cancelled at once, not after its own turn has wound down.
    this.#deps.hooks.emit("turnCancelling", { sessionId: this.id });
    // A worker still opening has not been given the turn: the prompt cancels it once it has.
    const lease = this.#worker.live;
    if (lease) this.#sendCancel(turn, lease);
  }

  /** Tells the worker to cancel the turn; it is terminated if the turn has not ended within the grace period. */
  #sendCancel(turn: Turn, lease: WorkerLease): void {
    const reason = turn.cancelReason;
    lease.post(
      reason === undefined ? { type: "cancel", turnId: turn.id } : { type: "cancel", turnId: turn.id, reason },
    );
    if (turn.graceTimer) clearTimeout(turn.graceTimer);
    turn.graceTimer = setTimeout(() => {
      if (!this.#turns.holds(turn.id)) return;
      this.#logger.warn(
        { graceMs: this.#deps.cancelGraceMs },
        "turn did not stop within the cancel grace: terminating its worker",
      );
      void lease.terminate();
    }, this.#deps.cancelGraceMs);
  }

  async setMode(mode: SessionModeId): Promise<void> {
    await this.#relays.tell({
      name: "setMode",
      keep: () => (this.settings.mode = mode),
      send: (api) => api.setMode(mode),
    });
    await this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  async setModel(model: ModelConfig): Promise<void> {
    await this.#relays.tell({
      name: "setModel",
      keep: () => (this.settings.model = model),
      send: (api) => api.setModel(model),
    });
  }

  /**
   * A client gave the session a new system prompt (load or resume): a live worker journals it and uses it from its
   * next request; a later worker is given it and journals it if its log has another.
   */
  setSystemPrompt(systemPrompt: SystemPromptSetting): Promise<void> {
    return this.#relays.tell({
      name: "setSystemPrompt",
      keep: () => (this.settings.systemPrompt = systemPrompt),
      send: (api) => api.setSystemPrompt(systemPrompt),
    });
  }

  /**
   * _host/set_budget named its tree (this is its root): a live worker journals the budget, a later worker is given it
   * and journals it if its log has another, so a restart keeps it.
   */
  setBudget(budget: Budget): Promise<void> {
    this.share.budget = budget;
    return this.#relays.tell({
      name: "setBudget",
      keep: () => (this.settings.budget = budget),
      send: (api) => api.setBudget(budget),
    });
  }

  /**
   * Settles a pending prompt as cancelled, releases the worker (graceful, then terminated) and this process's lock
   * on the session; the log stays. Idempotent. The release waits for `releaseAfter` when given.
   */
  close(graceMs: number, releaseAfter?: Promise<void>): Promise<void> {
    if (this.#state.closed) return this.#closing;
    // A worker still being opened is ended now, not awaited: the opening sees the session closed and gives up.
    const releaseMs = this.#state.phase === "starting" ? 0 : graceMs;
    this.#state.on("close");
    const turn = this.#turns.current;
    if (turn) this.#settle(turn, { stopReason: "cancelled" });
    this.#permissions.abortAll();
    this.#replay?.fail(sessionClosed());
    for (const attachment of this.#outbox.attachments)
      attachment.endWith("SESSION_CLOSED", `session ${this.id} was closed here: attach again to open it`);
    this.#closing = (async () => {
      try {
        await releaseAfter;
        // Its children close with it, beside its own worker.
        const children = this.#deps.delegation?.closing(this.id, graceMs);
        await this.#release(releaseMs);
        await children;
      } finally {
        await this.#deps
          .endSession?.(this.id)
          .catch((error: unknown) => this.#logger.warn({ err: error }, "ending the session's commands failed"));
        this.#deps.store.touched(this.id);
        await this.#deps.store.unlock(this.id);
        this.#state.on("closed");
        this.#deps.hooks.emit("sessionClosed", { sessionId: this.id });
      }
    })();
    return this.#closing;
  }

  /**
   * The store says this host no longer holds the session (another host took it over, or it was deleted there): a
   * turn in flight fails with why, and the session is closed here without another write to its log.
   */
  async lose(why: RequestError): Promise<void> {
    const turn = this.#turns.current;
    if (turn) this.#turns.fail(turn.id, why, this.#outbox.drained);
    this.#replay?.fail(why);
    await this.close(0);
  }

  /** Sends one update for this session; updates go out in the order they were sent. */
  send(update: SessionUpdate): Promise<void> {
    return this.#outbox.send(update);
  }

  /** An update about one of its children (subagent_update): only clients that understand subagents are shown it. */
  announce(update: SessionUpdate): Promise<void> {
    return this.#outbox.send(update, "subagents");
  }

  /**
   * load/resume passed other MCP servers than the session runs with: they are its servers from now on, and its worker
   * is released so the next prompt (or the load's replay) connects them. Not while a prompt runs with the old ones.
   */
  async useMcpServers(servers: McpServerConfig[]): Promise<void> {
    if (JSON.stringify(servers) === JSON.stringify(this.settings.mcpServers)) return;
    if (this.#turns.current)
      throw hostError(
        "PROMPT_IN_FLIGHT",
        "a prompt is in flight for this session: pass it other MCP servers once the prompt has ended",
        { sessionId: this.id },
      );
    this.settings.mcpServers = servers;
    // A worker still being opened was given the old servers: it is released once open.
    await this.#relays.started();
    await this.hibernate("its MCP servers changed (session/load or resume)");
  }

  #release(graceMs: number): Promise<void> {
    this.#clearIdleTimer();
    return this.#worker.release(graceMs);
  }

  #workerExited(exit: WorkerExit, whileOpening: boolean): void {
    this.#clearIdleTimer();
    this.#deps.hooks.emit("workerExited", { sessionId: this.id, kind: exit.kind });
    if (exit.kind === "crashed")
      this.#logger.error(
        { cause: exit.cause },
        "session worker died: the session's next prompt restores it from its log",
      );
    // A worker that dies while it starts fails the wake that waited for it: what waited on that wake (a prompt, a
    // load) is answered with the wake's error, which says so.
    if (whileOpening) return;
    this.#replay?.fail(workerFault(this.id, `session worker died: ${exit.cause}`));
    const turn = this.#turns.current;
    if (!turn) return;
    if (turn.cancelRequested || this.#state.closed) this.#settle(turn, { stopReason: "cancelled" });
    else this.#turns.fail(turn.id, workerFault(this.id, `session worker died: ${exit.cause}`), this.#outbox.drained);
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

  /** The worker titled the session from its first prompt: a title a client set wins. */
  #titled(title: string): void {
    if (this.#title !== null) return;
    this.#title = title;
    void this.send({ sessionUpdate: "session_info_update", title });
  }

  /** All of a turn's updates go out before its response. */
  #settle(turn: Turn, response: PromptResponse): void {
    this.#turns.settle(turn.id, response, this.#outbox.drained);
  }

  /** The worker broke the port's contract (it is being replaced): what waits on it fails with the fault. */
  #onFaulty(fault: RequestError): void {
    const turn = this.#turns.current;
    if (turn) this.#turns.fail(turn.id, fault, this.#outbox.drained);
    this.#replay?.fail(fault);
  }
}

/** The attach answer's participants: this attachment first, then others up to a page; all of them counted. */
function participantsPage(
  own: Attachment,
  attachments: readonly Attachment[],
): Pick<AttachResponse, "participants" | "participantCount"> {
  const participants = [own.participant];
  let participantCount = 0;
  for (const other of attachments) {
    if (other.ended) continue;
    participantCount++;
    if (other !== own && participants.length < PARTICIPANTS_PAGE) participants.push(other.participant);
  }
  return { participants, participantCount };
}
