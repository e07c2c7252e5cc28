// The conversation and tools as the chat-completions API takes them.
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ToolSpec } from "../tools/tool.js";
import type { ChatMessage } from "./model.js";

const NOT_RUN = "tool call not run";

/**
 * Maps the session's history to chat messages. Servers differ in what they tolerate, so the result is kept to
 * what all of them accept: consecutive user messages (a prompt whose turn failed, then the next) are merged,
 * an empty assistant message is dropped, and every assistant tool call is answered by exactly one tool message.
 */
export function toOpenAiMessages(system: string | null, history: readonly ChatMessage[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = system ? [{ role: "system", content: system }] : [];
  let pending: string[] = [];
  const answerPending = () => {
    for (const id of pending) messages.push({ role: "tool", tool_call_id: id, content: NOT_RUN });
    pending = [];
  };
  for (const message of history) {
    if (message.role === "tool") {
      if (!pending.includes(message.toolCallId)) continue;
      pending = pending.filter((id) => id !== message.toolCallId);
      messages.push({ role: "tool", tool_call_id: message.toolCallId, content: message.isError ? `Error: ${message.result}` : message.result });
      continue;
    }
    answerPending();
    if (message.role === "user") {
      const last = messages.at(-1);
      if (last?.role === "user" && typeof last.content === "string") last.content = `${last.content}\n\n${message.text}`;
      else messages.push({ role: "user", content: message.text });
      continue;
    }
    const content = message.blocks.join("");
    if (content.length === 0 && message.toolCalls.length === 0) continue;
    messages.push({
      role: "assistant",
      content: content.length > 0 ? content : null,
      ...(message.toolCalls.length > 0
        ? {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function" as const,
              function: { name: call.name, arguments: typeof call.input === "string" ? call.input : JSON.stringify(call.input ?? {}) },
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
