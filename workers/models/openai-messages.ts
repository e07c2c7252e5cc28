// The conversation and tools as the chat-completions API takes them.
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ToolSpec } from "../tools/tool.js";
import type { ChatMessage } from "./model.js";

const NOT_RUN = "tool call not run";
export const SUMMARY_HEADING = "Summary of the earlier conversation (compacted to fit the context window):";

/**
 * Which earlier reasoning goes back to the server. "current-turn" (DeepSeek): the reasoning of the assistant
 * messages since the last user message, as reasoning_content (a tool-calling turn needs it; earlier turns' must
 * not be sent). "none" (every other server): reasoning is never sent back.
 */
export type ReasoningHistory = "current-turn" | "none";

/**
 * Maps the session's history to chat messages. Servers differ in what they tolerate, so the result is kept to
 * what all of them accept: consecutive user messages (a prompt whose turn failed, then the next) are merged,
 * an empty assistant message is dropped, and every assistant tool call is answered by exactly one tool message.
 * A compaction's summary goes at the end of the system message (as a user message only when there is none): the
 * kept conversation after it opens with a user message, which then stays a message of its own, so that after a
 * hard compaction the request still ends with the user's prompt exactly as it was sent.
 */
export function toOpenAiMessages(
  system: string | null,
  history: readonly ChatMessage[],
  reasoning: ReasoningHistory = "none",
): ChatCompletionMessageParam[] {
  const currentTurn =
    reasoning === "current-turn"
      ? history.findLastIndex((message) => message.role === "user" || message.role === "summary")
      : history.length;
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  let pending: string[] = [];
  const answerPending = () => {
    for (const id of pending) messages.push({ role: "tool", tool_call_id: id, content: NOT_RUN });
    pending = [];
  };
  for (const [index, message] of history.entries()) {
    if (message.role === "tool") {
      if (!pending.includes(message.toolCallId)) continue;
      pending = pending.filter((id) => id !== message.toolCallId);
      messages.push({
        role: "tool",
        tool_call_id: message.toolCallId,
        content: message.isError ? `Error: ${message.result}` : message.result,
      });
      continue;
    }
    answerPending();
    if (message.role === "user" || message.role === "summary") {
      const text = message.role === "summary" ? `${SUMMARY_HEADING}\n\n${message.text}` : message.text;
      const last = messages.at(-1);
      if (message.role === "summary" && last?.role === "system" && typeof last.content === "string") {
        last.content = `${last.content}\n\n${text}`;
        continue;
      }
      if (last?.role === "user" && typeof last.content === "string") last.content = `${last.content}\n\n${text}`;
      else messages.push({ role: "user", content: text });
      continue;
    }
    const content = message.blocks.join("");
    if (content.length === 0 && message.toolCalls.length === 0) continue;
    const thought = index > currentTurn && message.thought ? { reasoning_content: message.thought } : {};
    messages.push({
      role: "assistant",
      content: content.length > 0 ? content : null,
      ...thought,
      ...(message.toolCalls.length > 0
        ? {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: {
                name: call.name,
                arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {}),
              },
            })),
          }
        : {}),
    });
    pending = message.toolCalls.map((call) => call.id);
  }
  answerPending();
  return messages;
}

export function toOpenAiTools(specs: readonly ToolSpec[]): ChatCompletionFunctionTool[] {
  return specs.map((spec) => {
    // "$schema" is noise to a model and some servers reject unknown top-level keywords.
    const { $schema: _schema, ...parameters } = spec.parameters;
    return { type: "function", function: { name: spec.name, description: spec.description, parameters } };
  });
}
