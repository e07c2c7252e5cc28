// One session/update as the host shows it: numbered (its event id in `_meta`), sized once for every queue it waits in,
// and marked with who is shown it.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { EVENT_ID_META_KEY } from "../../protocol/attach.js";
import { formatEventId, type EventPosition } from "../../protocol/event-id.js";
import type { PeerUnderstands } from "../connection/peer.js";

export interface ShownUpdate {
  readonly position: EventPosition;
  /** Its session/update notification serialized (for a session's own id), once, for every client written directly. */
  wire?: string;
  /** With `_meta.eventId` (and messageId on a message's chunks). */
  readonly update: SessionUpdate;
  /** What it costs a queue to hold (its text's length, about its JSON's). */
  readonly bytes: number;
  /**
   * Which clients are shown it: every one, or (a compaction's) only those that understand compaction updates, or only
   * those that do not (the notice they see instead, numbered as the update it replaces), or (a child's announcement)
   * only those that understand subagents.
   */
  readonly audience: "all" | "compaction" | "plain" | "subagents";
  /** A prompt's text: shown to attached clients; the connection that owns the session sent it and is not shown it. */
  readonly echo: boolean;
}

export function shownTo(shown: ShownUpdate, client: PeerUnderstands): boolean {
  switch (shown.audience) {
    case "all":
      return true;
    case "subagents":
      return client.subagents;
    default:
      return (shown.audience === "compaction") === client.compaction;
  }
}

/** What numbers updates (a session's outbox, a store follower). */
export interface Numbering {
  number(update: SessionUpdate, position: EventPosition, audience: ShownUpdate["audience"], echo: boolean): ShownUpdate;
}

/**
 * An update with its event id (and, for a message's chunk, the message's id: its log entry's number). sized: whether a
 * queue will hold it (a session nobody attached to pays nothing for its size).
 */
export function numbered(
  update: SessionUpdate,
  position: EventPosition,
  audience: ShownUpdate["audience"],
  echo: boolean,
  sized: boolean,
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
  return { position, update: withId, bytes: sized ? JSON.stringify(withId).length : 0, audience, echo };
}
