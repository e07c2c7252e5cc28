// What a client that advertised `session.notices` is told while its turn's model request waits for room at the
// provider endpoint (the model gateway's scheduler): what it waits for, and until when. A live notice, never logged
// nor replayed.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { WorkerEvent } from "../../protocol/worker-events.js";

/** `_meta` key of the notice: `{ waitingFor, until }` for a client that reads it rather than the words. */
export const PROVIDER_WAIT_META_KEY = "acp-session-host";

const WAITING_FOR = {
  window: "the provider's other requests in flight to end (its concurrency window is full)",
  pause: "the provider's pause to end (it answered 429 and said when to come back)",
  requests: "the provider's request limit to reset",
  tokens: "the provider's token limit to reset",
} as const;

export function providerWaitNotice(event: Extract<WorkerEvent, { type: "provider_wait" }>): SessionUpdate {
  const until = event.untilMs === null ? null : new Date(event.untilMs).toISOString();
  return {
    sessionUpdate: "notice",
    severity: "info",
    title: "Waiting for the model provider",
    description: `The model request waits for ${WAITING_FOR[event.what]}${until ? `, until ${until}` : ""}.`,
    _meta: { [PROVIDER_WAIT_META_KEY]: { waitingFor: event.what, until } },
  };
}
