// Which part of a conversation a compaction replaces by a summary. Cuts fall only where a user or assistant message
// starts, so an assistant's tool calls always keep their results and every result kept still has its call.
// "normal" keeps the last turns whole (up to KEEP_TURNS, as many as fit in half the budget, the current one always);
// "hard" (the provider still said the request is too long) keeps only the current turn's last model answer and its
// tool results, and carries the user's current request verbatim into the summary.
import type { ChatMessage } from "../models/model.js";
import { estimateMessages } from "./token-estimate.js";

export const KEEP_TURNS = 4;

export type CompactionLevel = "normal" | "hard";

export interface CompactionPlan {
  /** history[0, cut) is summarised; history[cut…] is kept as is. */
  cut: number;
  /** User turns (whole or begun) in the summarised part. */
  turns: number;
  /** The user's current request, when the cut passes it: it goes into the summary word for word. */
  request: string | null;
}

/** Null when nothing can be summarised at this level. */
export function planCompaction(history: readonly ChatMessage[], level: CompactionLevel, budgetTokens: number): CompactionPlan | null {
  const start = history[0]?.role === "summary" ? 1 : 0;
  const users = history.flatMap((message, index) => (message.role === "user" ? [index] : []));
  const current = users.at(-1) ?? -1;
  let cut: number;
  if (level === "normal") {
    if (current < 0) return null;
    cut = current;
    for (let k = users.length - 2; k >= 0 && users.length - k <= KEEP_TURNS; k--) {
      if (estimateMessages(history.slice(users[k])) > budgetTokens / 2) break;
      cut = users[k]!;
    }
  } else {
    const lastAnswer = history.findLastIndex((message) => message.role === "assistant");
    cut = lastAnswer > current ? lastAnswer : current >= 0 ? current + 1 : history.length;
  }
  if (cut <= start) return null;
  const turns = users.filter((index) => index < cut).length;
  const passed = current >= 0 && cut > current ? history[current] : undefined;
  return { cut, turns, request: passed?.role === "user" ? passed.text : null };
}
