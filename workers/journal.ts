// What a session records of itself. The agent loop appends an entry before it posts the event that shows it,
// so nothing the client has seen can be missing from the record.
import type { SessionModeId, StopReason, ToolKind } from "../src/protocol/port.js";
import type { ToolCallRequest } from "./models/model.js";

export type JournalEntry =
  | { type: "turn_start"; turnId: string; at: string }
  | { type: "user_message"; turnId: string; text: string }
  | { type: "assistant_message"; turnId: string; blocks: string[]; toolCalls: ToolCallRequest[] }
  | { type: "tool_call"; turnId: string; toolCallId: string; callId: string; name: string; title: string; kind: ToolKind; input: unknown }
  | { type: "tool_result"; turnId: string; toolCallId: string; callId: string; name: string; result: string; isError: boolean }
  | { type: "permission"; turnId: string; toolCallId: string; outcome: string }
  | { type: "mode"; mode: SessionModeId }
  | { type: "turn_end"; turnId: string; stopReason: StopReason | "error" | "interrupted"; error?: string };

export interface Journal {
  /** Appends one entry; returns once the write call has returned. */
  append(entry: JournalEntry): void;
  /** Makes the turn durable (fsync) and refreshes the listing summary. */
  endTurn(): void;
  /** Every entry recorded so far, oldest first (after load-repair). */
  entries(): readonly JournalEntry[];
  close(): void;
}

/** A session that keeps its record in memory only. */
export class MemoryJournal implements Journal {
  readonly #entries: JournalEntry[] = [];
  append(entry: JournalEntry): void {
    this.#entries.push(entry);
  }
  endTurn(): void {}
  entries(): readonly JournalEntry[] {
    return this.#entries;
  }
  close(): void {}
}
