// The request that asks the model to summarise the part of the conversation a compaction replaces. Its input is
// made to fit the budget: the oldest messages go first (a summary already there stays), then long texts are clipped
// to their head and tail.
import type { ChatMessage } from "../models/model.js";
import { estimateMessages } from "./token-estimate.js";

export const SUMMARY_PROMPT = [
  "Summarise the conversation above for your own later use: it will replace it, so keep what you need to go on.",
  "Keep the user's goals and requests, what was done (files read or changed, commands run and their outcomes),",
  "decisions, open questions and what remains to do. Keep names, paths, identifiers and numbers exact.",
  "Answer with the summary only; call no tools.",
].join(" ");

const CHARS_PER_TOKEN = 3;

export function summaryInput(prefix: readonly ChatMessage[], budgetTokens: number): ChatMessage[] {
  const keepFirst = prefix[0]?.role === "summary" ? 1 : 0;
  let messages = [...prefix];
  while (messages.length > keepFirst + 1 && estimateMessages(messages) > budgetTokens) messages.splice(keepFirst, 1);
  if (estimateMessages(messages) > budgetTokens) {
    const chars = Math.max(200, Math.floor((budgetTokens * CHARS_PER_TOKEN) / messages.length));
    messages = messages.map((message) => clipMessage(message, chars));
  }
  return [...messages, { role: "user", text: SUMMARY_PROMPT }];
}

/** The summary a compaction stores: the model's words, then the user's current request when the cut passed it. */
export function summaryText(answer: string, request: string | null): string {
  const summary = answer.trim() || "(the model wrote no summary of the earlier conversation)";
  return request === null ? summary : `${summary}\n\nThe user's current request, word for word:\n${request}`;
}

function clipMessage(message: ChatMessage, chars: number): ChatMessage {
  switch (message.role) {
    case "user":
    case "summary":
      return { ...message, text: clip(message.text, chars) };
    case "tool":
      return { ...message, result: clip(message.result, chars) };
    case "assistant":
      return { ...message, blocks: [clip(message.blocks.join(""), chars)], thought: undefined };
  }
}

function clip(text: string, chars: number): string {
  if (text.length <= chars) return text;
  const half = Math.floor(chars / 2);
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters left out) …\n${text.slice(-half)}`;
}
