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
  readonly #pending = new Map<string, AbortController>();

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

  /**
   * Asks every controller (after `after`: the turn's updates so far); the first valid answer wins, and every other
   * controller's request is withdrawn ($/cancel_request). No one to ask: cancelled.
   */
  async ask(peers: readonly Peer[], event: PermissionRequestEvent, after: Promise<void>): Promise<PermissionOutcome> {
    const abort = new AbortController();
    this.#pending.set(event.requestId, abort);
    try {
      await after;
      if (peers.length === 0 || abort.signal.aborted) return { outcome: "cancelled" };
      const request: RequestPermissionRequest = {
        sessionId: this.#sessionId,
        toolCall: {
          toolCallId: event.toolCallId,
          title: event.title,
          kind: event.kind,
          status: "pending",
          rawInput: event.rawInput,
        },
        options: PERMISSION_OPTIONS,
      };
      const asked = peers.map(() => new AbortController());
      const answers = peers.map((peer, index) =>
        this.#askOne(peer, request, AbortSignal.any([abort.signal, asked[index]!.signal])),
      );
      // Compare-and-set: the first answer that is one of the options is the outcome; the others are withdrawn.
      const winner = await firstValid(answers);
      asked.forEach((controller, index) => index !== winner?.index && controller.abort());
      return abort.signal.aborted || !winner ? { outcome: "cancelled" } : winner.outcome;
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

/** The first answer that is not null, with its index; null once every one is. */
function firstValid(
  answers: Promise<PermissionOutcome | null>[],
): Promise<{ index: number; outcome: PermissionOutcome } | null> {
  return new Promise((resolve) => {
    let left = answers.length;
    answers.forEach(
      (answer, index) =>
        void answer.then((outcome) => {
          if (outcome) resolve({ index, outcome });
          else if (--left === 0) resolve(null);
        }),
    );
  });
}
