// The request that asks the model to summarise the part of the conversation a compaction replaces, and the summary
// kept from its answer. The input is made to fit the budget: the oldest messages go first (a summary already there
// stays), then long texts are clipped to their head and tail. The summary may take at most the tokens the plan
// allows (half of what it replaces): the model is asked for fewer words than that, and a longer answer is clipped.
import type { ChatMessage } from "../models/model.js";
import { estimateMessages } from "./token-estimate.js";

export const SUMMARY_PROMPT = [
  "Summarise the conversation above for your own later use: it will replace it, so keep what you need to go on.",
  "Keep the user's goals and requests, what was done (files read or changed, commands run and their outcomes),",
  "decisions, open questions and what remains to do. Keep names, paths, identifiers and numbers exact.",
  "Answer with the summary only; call no tools.",
].join(" ");

const CHARS_PER_TOKEN = 3;

/** The instruction, with the length the summary should keep within. */
export function summaryPrompt(maxWords: number): string {
  return `${SUMMARY_PROMPT} Keep it under ${maxWords} words.`;
}

/**
 * Words to ask for when the summary may take `summaryTokens`: the estimate counts about 3 characters a token and a
 * word with its space takes about 6, so half the text tokens; the framing of the message comes off first.
 */
export function summaryWords(summaryTokens: number): number {
  return Math.max(10, Math.floor((summaryTokens - estimateMessages([{ role: "summary", text: "" }])) / 2));
}

export function summaryInput(prefix: readonly ChatMessage[], budgetTokens: number, maxWords: number): ChatMessage[] {
  const keepFirst = prefix[0]?.role === "summary" ? 1 : 0;
  let messages = [...prefix];
  while (messages.length > keepFirst + 1 && estimateMessages(messages) > budgetTokens) messages.splice(keepFirst, 1);
  if (estimateMessages(messages) > budgetTokens) {
    const chars = Math.max(200, Math.floor((budgetTokens * CHARS_PER_TOKEN) / messages.length));
    messages = messages.map((message) => clipMessage(message, chars));
  }
  return [...messages, { role: "user", text: summaryPrompt(maxWords) }];
}

/**
 * The summary a compaction stores: the model's words, clipped to their head and tail when the message would take more
 * than summaryTokens.
 */
export function summaryText(answer: string, summaryTokens: number): string {
  const summary = answer.trim() || "(the model wrote no summary of the earlier conversation)";
  const fits = (text: string) => estimateMessages([{ role: "summary", text }]) <= summaryTokens;
  if (fits(summary)) return summary;
  // JSON escapes make the estimate grow faster than the text: shrink until it fits.
  let chars = Math.max(0, (summaryTokens - estimateMessages([{ role: "summary", text: "" }])) * CHARS_PER_TOKEN);
  let clipped = clip(summary, chars);
  while (!fits(clipped) && chars > 0) {
    chars = Math.floor(chars * 0.9);
    clipped = clip(summary, chars);
  }
  return clipped;
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
  // slice(-0) would be the whole text.
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters left out) …\n${half > 0 ? text.slice(-half) : ""}`;
}
