// A cheap token count for what a request will carry beyond the last usage the provider reported (the conversation's
// count is the log's: src/protocol/log/token-estimate.ts).
import type { ChatMessage } from "../models/model.js";
import type { ToolSpec } from "../tools/tool.js";
import { estimateMessages, estimateTokens } from "../../src/protocol/log/token-estimate.js";

export { CHARS_PER_TOKEN, estimateMessages, estimateTokens } from "../../src/protocol/log/token-estimate.js";

/** The system prompt the provider adds to every request. */
const SYSTEM_ALLOWANCE = 256;

/** The whole of a request: system prompt, tool definitions and conversation. */
export function estimateRequest(messages: readonly ChatMessage[], tools: readonly ToolSpec[]): number {
  return SYSTEM_ALLOWANCE + (tools.length > 0 ? estimateTokens(JSON.stringify(tools)) : 0) + estimateMessages(messages);
}
