// The conversation a model sees, as the session's log rebuilds it: the worker's models take it, and a compacted log's
// snapshot holds it (both threads read that).
export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

export type ChatMessage =
  | { role: "user"; text: string }
  /** `thought`: the model's reasoning (reasoning_content), when it sent any. */
  | { role: "assistant"; blocks: string[]; toolCalls: ToolCallRequest[]; thought?: string }
  | { role: "tool"; toolCallId: string; name: string; result: string; isError: boolean }
  /** What a compaction left of the older conversation: the model's own summary of it. */
  | { role: "summary"; text: string };
