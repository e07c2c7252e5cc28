// A cheap token count of conversation text, the same on both threads (a compaction's plan in the worker, its notice
// wherever the log is shown). It errs high: about 3 characters a token (prose runs near 4, JSON and code nearer 3),
// plus a few tokens of framing per message.
import type { ChatMessage } from "./chat-message.js";

export const CHARS_PER_TOKEN = 3;
const PER_MESSAGE = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export function estimateMessages(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const message of messages) total += estimateTokens(JSON.stringify(message)) + PER_MESSAGE;
  return total;
}
