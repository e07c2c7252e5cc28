// Which part of a conversation a compaction replaces by a summary, and how long that summary may be.
//
// The turn in flight is never summarised, at any level: a cut falls only where a user message starts, and never
// after the current turn's user message, so that message and the tool calls and results of the turn so far stay
// word for word after the summary, and the request still ends with what the user asked. (A cut at a user message
// also never parts an assistant's tool calls from their results.)
// - "normal" (the request is estimated above --compact-at) keeps the last turns whole: up to KEEP_TURNS, as many as
//   fit in half the budget, the current one always.
// - "hard" (the provider refused the request as too long, or normal left it above the budget) keeps the current turn
//   only: every turn before it goes into the summary.
// Either way the summary may take at most half of the tokens of the part it replaces (summaryTokens: the model is
// asked for that length, and a longer answer is clipped to it), so a compaction always takes at least half of that
// part out of the request. A part too small for such a summary to say anything is not worth a compaction.
import type { ChatMessage } from "../models/model.js";
import { estimateMessages } from "./token-estimate.js";

export const KEEP_TURNS = 4;

/** The least a summary may take (its framing included): a part of under twice this is not compacted. */
export const MIN_SUMMARY_TOKENS = 64;

export type CompactionLevel = "normal" | "hard";

/** Where a compaction cuts the conversation, and how long its summary may be. */
export interface CompactionPlan {
  /** history[0, cut) is summarised; history[cut…] is kept as is. history[cut] is a user message. */
  cut: number;
  /** User turns in the summarised part (whole ones: a cut falls where a turn starts). */
  turns: number;
  /** The estimated tokens of history[0, cut). */
  replacedTokens: number;
  /** The most the summary message may take: half of replacedTokens. */
  summaryTokens: number;
}

/** Null when nothing worth summarising lies before the turn in flight at this level. */
export function planCompaction(
  history: readonly ChatMessage[],
  level: CompactionLevel,
  budgetTokens: number,
): CompactionPlan | null {
  const start = history[0]?.role === "summary" ? 1 : 0;
  const users = history.flatMap((message, index) => (message.role === "user" ? [index] : []));
  const current = users.at(-1);
  if (current === undefined) return null;
  let cut = current;
  if (level === "normal") {
    for (let k = users.length - 2; k >= 0 && users.length - k <= KEEP_TURNS; k--) {
      if (estimateMessages(history.slice(users[k])) > budgetTokens / 2) break;
      cut = users[k]!;
    }
  }
  if (cut <= start) return null;
  const replacedTokens = estimateMessages(history.slice(0, cut));
  const summaryTokens = Math.floor(replacedTokens / 2);
  if (summaryTokens < MIN_SUMMARY_TOKENS) return null;
  return { cut, turns: users.filter((index) => index < cut).length, replacedTokens, summaryTokens };
}
