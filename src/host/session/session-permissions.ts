// A session's permission requests to its client: each one-shot, owned by the session that asked, and answered
// cancelled when the turn is cancelled, the session closes or its connection goes.
import type { PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { PermissionOutcome } from "../../protocol/port.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { Logger } from "../../logger.js";
import type { Peer } from "../connection/peer.js";

const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow_always", name: "Allow always (this session, this tool)", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

export type PermissionRequestEvent = Extract<WorkerEvent, { type: "permission_request" }>;

export class PermissionRequests {
  readonly #sessionId: string;
  readonly #logger: Logger;
  /** By request id: the requests not answered yet. */
  readonly #pending = new Map<string, PendingPermission>();

  constructor(sessionId: string, logger: Logger) {
    this.#sessionId = sessionId;
    this.#logger = logger;
  }

  /** Whether a request waits for its answer. */
  get waiting(): boolean {
    return this.#pending.size > 0;
  }

  /** Every request still waiting is answered cancelled. */
  abortAll(): void {
    for (const request of this.#pending.values()) request.abort();
  }

  /** A controller attached: every request still waiting is put to it too (the first answer from anyone wins). */
  offerTo(peer: Peer): void {
    for (const request of this.#pending.values()) request.offer(peer);
  }

  /**
   * Asks every controller (after `after`: the turn's updates so far), and each one that attaches while it waits; the
   * first valid answer wins, and every other controller's request is withdrawn ($/cancel_request). No one to ask, or
   * every one asked answered without choosing: cancelled.
   */
  async ask(peers: readonly Peer[], event: PermissionRequestEvent, after: Promise<void>): Promise<PermissionOutcome> {
    const pending = new PendingPermission((peer, request, signal) => this.#askOne(peer, request, signal));
    this.#pending.set(event.requestId, pending);
    try {
      await after;
      if (peers.length === 0 || pending.aborted) return { outcome: "cancelled" };
      pending.open({
        sessionId: this.#sessionId,
        toolCall: {
          toolCallId: event.toolCallId,
          title: event.title,
          kind: event.kind,
          status: "pending",
          rawInput: event.rawInput,
        },
        options: PERMISSION_OPTIONS,
      });
      for (const peer of peers) pending.offer(peer);
      return (await pending.outcome) ?? { outcome: "cancelled" };
    } finally {
      this.#pending.delete(event.requestId);
    }
  }

  /** One controller's choice: null when it made none (an error, cancelled, an outcome not offered). */
  async #askOne(peer: Peer, request: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionOutcome | null> {
    try {
      const response = await peer.client.request("session/request_permission", request, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
      const parsed = PermissionOutcome.safeParse(response.outcome);
      if (parsed.success && parsed.data.outcome === "selected") return parsed.data;
      if (!parsed.success)
        this.#logger.warn(
          { outcome: response.outcome, connection: peer.label },
          "permission outcome not among the offered options: treated as cancelled",
        );
      // A controller's "cancelled" leaves the question to the others; it is the outcome once every one has answered.
      return null;
    } catch (error) {
      if (!signal.aborted && !peer.closed)
        this.#logger.warn({ err: error, connection: peer.label }, "permission request failed: treated as cancelled");
      return null;
    }
  }
}

type AskOne = (peer: Peer, request: RequestPermissionRequest, signal: AbortSignal) => Promise<PermissionOutcome | null>;

/**
 * One request put to every controller as it comes (compare-and-set: the first answer that is one of the options is
 * the outcome; the others' requests are withdrawn). Settles null once every controller asked has answered without
 * choosing, or it is aborted.
 */
class PendingPermission {
  readonly outcome: Promise<PermissionOutcome | null>;
  readonly #askOne: AskOne;
  readonly #abort = new AbortController();
  readonly #asked = new Map<Peer, AbortController>();
  #request: RequestPermissionRequest | null = null;
  #unanswered = 0;
  #settled = false;
  #settle!: (outcome: PermissionOutcome | null) => void;

  constructor(askOne: AskOne) {
    this.#askOne = askOne;
    this.outcome = new Promise((resolve) => (this.#settle = resolve));
    this.#abort.signal.addEventListener("abort", () => this.#end(null, null));
  }

  get aborted(): boolean {
    return this.#abort.signal.aborted;
  }

  abort(): void {
    this.#abort.abort();
  }

  /** The request is ready to be put (the turn's updates before it have been shown). */
  open(request: RequestPermissionRequest): void {
    this.#request = request;
  }

  /** Puts the request to this controller, once, while it waits. */
  offer(peer: Peer): void {
    const request = this.#request;
    if (!request || this.#settled || this.#asked.has(peer)) return;
    const asked = new AbortController();
    this.#asked.set(peer, asked);
    this.#unanswered++;
    void this.#askOne(peer, request, AbortSignal.any([this.#abort.signal, asked.signal])).then((outcome) => {
      if (outcome) this.#end(peer, outcome);
      else if (--this.#unanswered === 0) this.#end(null, null);
    });
  }

  #end(winner: Peer | null, outcome: PermissionOutcome | null): void {
    if (this.#settled) return;
    this.#settled = true;
    for (const [peer, asked] of this.#asked) if (peer !== winner) asked.abort();
    this.#settle(outcome);
  }
}
