// One session/update as the host shows it: numbered (its event id in `_meta`), sized once for every queue it waits in,
// and marked with who is shown it.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { EventPosition } from "../../protocol/event-id.js";
import type { PeerUnderstands } from "../connection/peer.js";

export interface ShownUpdate {
  readonly position: EventPosition;
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
