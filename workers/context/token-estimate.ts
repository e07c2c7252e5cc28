// A cheap token count for what a request will carry beyond the last usage the provider reported. It errs high:
// about 3 characters a token (prose runs near 4, JSON and code nearer 3), plus a few tokens of framing per message.
import type { ChatMessage } from "../models/model.js";
import type { ToolSpec } from "../tools/tool.js";

const CHARS_PER_TOKEN = 3;
const PER_MESSAGE = 4;
/** The system prompt the provider adds to every request. */
const SYSTEM_ALLOWANCE = 256;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessages(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(JSON.stringify(message)) + PER_MESSAGE;
  return total;
}

/** The whole of a request: system prompt, tool definitions and conversation. */
export function estimateRequest(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  return SYSTEM_ALLOWANCE + (tools.length > 0 ? estimateTokens(JSON.stringify(tools)) : 0) + estimateMessages(messages);
}
