// A session's history as the events a client saw: its prompts, the committed assistant messages (their reasoning
// first), each tool call and its final update, each plan, each compaction (its summary, and the notice a client without
// compaction updates sees). session/load posts these (turnId "replay") before it answers; a compaction changes what the
// model sees, never what is replayed.
import { REPLAY_TURN_ID } from "../port.js";
import type { WorkerEvent } from "../worker-events.js";
import { compactionNotice } from "./compaction-notice.js";
import type { LogEntry } from "./session-log.js";
import { isReplayed } from "./snapshot.js";

/**
 * entries: every replayable entry of the log, in order (others may be among them); each event carries its entry's
 * number (seq), as when it was shown live. Only those numbered from `from` on are returned.
 */
export function replayEvents(entries: readonly LogEntry[], from = 0): WorkerEvent[] {
  const renderer = new ReplayRenderer();
  const events = entries.flatMap((entry) => renderer.show(entry));
  return from <= 1 ? events : events.filter((event) => "seq" in event && event.seq !== undefined && event.seq >= from);
}

/** The same, one entry at a time (a client following a session's log as it grows): the state is kept between them. */
export class ReplayRenderer {
  readonly #shown = new Set<string>();
  readonly #compactionsOfTurn = new Map<string, number>();
  #seq: number;

  /** shownBefore: the replayable entries before the first one it is given. */
  constructor(shownBefore = 0) {
    this.#seq = shownBefore;
  }

  show(entry: LogEntry): WorkerEvent[] {
    const turnId = REPLAY_TURN_ID;
    const shown = this.#shown;
    const compactionsOfTurn = this.#compactionsOfTurn;
    if (isReplayed(entry)) this.#seq++;
    const seq = this.#seq;
    const events: WorkerEvent[] = [];
    const show = (event: Extract<WorkerEvent, { seq?: number }>): void => {
      events.push({ ...event, seq });
    };
    switch (entry.type) {
      case "user_message":
        show({ type: "user_message", turnId, text: entry.text });
        break;
      case "assistant_message":
        if (entry.thought) show({ type: "thought", turnId, text: entry.thought });
        if (entry.blocks.some((block) => block.length > 0))
          show({ type: "assistant_message", turnId, blocks: entry.blocks });
        break;
      case "tool_call":
        shown.add(entry.toolCallId);
        show({
          type: "tool_call",
          turnId,
          toolCallId: entry.toolCallId,
          name: entry.name,
          title: entry.title,
          kind: entry.kind,
          status: "pending",
          rawInput: entry.input,
        });
        break;
      case "tool_result":
        // A result load-repair gave a call that never started has no tool call to update.
        if (!shown.has(entry.toolCallId)) break;
        show({
          type: "tool_call_update",
          turnId,
          toolCallId: entry.toolCallId,
          status: entry.isError ? "failed" : "completed",
          result: entry.result,
        });
        break;
      case "compaction": {
        const nth = (compactionsOfTurn.get(entry.turnId) ?? 0) + 1;
        compactionsOfTurn.set(entry.turnId, nth);
        // One journaled before ids were kept is named by its turn and its place among that turn's compactions.
        const compactionId = entry.compactionId ?? `${entry.turnId}:${nth}`;
        show({
          type: "compaction",
          turnId,
          compactionId,
          status: "completed",
          summary: entry.summary,
          notice: compactionNotice(entry),
        });
        break;
      }
      case "plan":
        show({ type: "plan", turnId, entries: entry.entries });
        break;
      default:
        break;
    }
    return events;
  }
}
