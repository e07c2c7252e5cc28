// Rebuilds the conversation a model sees from a session's journal.
import type { JournalEntry } from "./journal.js";
import type { ChatMessage } from "./models/model.js";

export function historyFrom(entries: readonly JournalEntry[]): ChatMessage[] {
  const history: ChatMessage[] = [];
  for (const entry of entries) {
    if (entry.type === "user_message") history.push({ role: "user", text: entry.text });
    else if (entry.type === "assistant_message") history.push({ role: "assistant", blocks: entry.blocks, toolCalls: entry.toolCalls });
    else if (entry.type === "tool_result")
      history.push({ role: "tool", toolCallId: entry.callId, name: entry.name, result: entry.result, isError: entry.isError });
  }
  return history;
}
