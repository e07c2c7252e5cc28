// One session/update as the host shows it: numbered (its event id in `_meta`), sized once for every queue it waits in,
// and marked with who is shown it.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { EVENT_ID_META_KEY } from "../../protocol/attach.js";
import { formatEventId, type EventPosition } from "../../protocol/event-id.js";
import type { PeerUnderstands } from "../connection/peer.js";
import { WireMessage } from "../connection/wire-message.js";

export interface ShownUpdate {
  readonly position: EventPosition;
  /**
   * Its session/update notification, serialized once where a queue will hold it (its session has attached clients):
   * written as it is to every client on a WebSocket, and its length is what the update costs a queue.
   */
  readonly wire: WireMessage | null;
  /** With `_meta.eventId` (and messageId on a message's chunks). */
  readonly update: SessionUpdate;
  /** What it costs a queue to hold: its notification's length (0 where no queue holds it). */
  readonly bytes: number;
  /**
   * Which clients are shown it: every one, or (a compaction's) only those that understand compaction updates, or only
   * those that do not (the notice they see instead, numbered as the update it replaces), or (a child's announcement)
   * only those that understand subagents.
   */
  readonly audience: "all" | "compaction" | "plain" | "subagents" | "notices";
  /** A prompt's text: shown to attached clients; the connection that owns the session sent it and is not shown it. */
  readonly echo: boolean;
}

export function shownTo(shown: ShownUpdate, client: PeerUnderstands): boolean {
  switch (shown.audience) {
    case "all":
      return true;
    case "subagents":
      return client.subagents;
    case "notices":
      return client.notices;
    default:
      return (shown.audience === "compaction") === client.compaction;
  }
}

/** What numbers updates (a session's outbox, a store follower). */
export interface Numbering {
  number(update: SessionUpdate, position: EventPosition, audience: ShownUpdate["audience"], echo: boolean): ShownUpdate;
}

/**
 * An update with its event id (and, for a message's chunk, the message's id: its log entry's number). queuedFor: the
 * session whose attached clients' queues will hold it, which it is serialized for; null: none will (a session nobody
 * attached to pays nothing for it).
 */
export function numbered(
  update: SessionUpdate,
  position: EventPosition,
  audience: ShownUpdate["audience"],
  echo: boolean,
  queuedFor: string | null,
): ShownUpdate {
  const eventId = formatEventId(position);
  const withId = { ...update, _meta: { ...update._meta, [EVENT_ID_META_KEY]: eventId } } as SessionUpdate;
  if (
    position[2] === 0 &&
    (withId.sessionUpdate === "agent_message_chunk" ||
      withId.sessionUpdate === "user_message_chunk" ||
      withId.sessionUpdate === "agent_thought_chunk")
  )
    withId.messageId = `${withId.sessionUpdate === "agent_thought_chunk" ? "t" : "m"}${position[0]}`;
  const wire = queuedFor === null ? null : notification("session/update", { sessionId: queuedFor, update: withId });
  return { position, update: withId, wire, bytes: wire?.json.length ?? 0, audience, echo };
}

/** A JSON-RPC notification, serialized. */
export function notification(method: string, params: unknown): WireMessage {
  return new WireMessage(JSON.stringify({ jsonrpc: "2.0", method, params }));
}
