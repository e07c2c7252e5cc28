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

  /** Every request still waiting is answered cancelled. */
  abortAll(): void {
    for (const request of this.#pending.values()) request.abort();
  }

  /** Asks peer (after `after`: the turn's updates so far); null peer: no one to ask, so cancelled. */
  async ask(peer: Peer | null, event: PermissionRequestEvent, after: Promise<void>): Promise<PermissionOutcome> {
    const abort = new AbortController();
    this.#pending.set(event.requestId, abort);
    let outcome: PermissionOutcome = { outcome: "cancelled" };
    try {
      await after;
      if (peer && !abort.signal.aborted) {
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
        const response = await peer.client.request("session/request_permission", request, {
          cancellationSignal: abort.signal,
          stopWaitingOnCancel: true,
        });
        const parsed = PermissionOutcome.safeParse(response.outcome);
        if (parsed.success) outcome = parsed.data;
        else
          this.#logger.warn(
            { outcome: response.outcome },
            "permission outcome not among the offered options: treated as cancelled",
          );
      }
    } catch (error) {
      if (!abort.signal.aborted) this.#logger.warn({ err: error }, "permission request failed: treated as cancelled");
    } finally {
      this.#pending.delete(event.requestId);
    }
    return abort.signal.aborted ? { outcome: "cancelled" } : outcome;
  }
}
