// The words a client sees (agent_thought_chunk) when its session's conversation was compacted, live and on replay.
// They say which turns went into the summary and how large they were, how large the summary is (the plan holds it to
// at most half of what it replaces, compaction-plan.ts), and that the turn in flight was kept as it is. An entry from
// a log written before the level was recorded is shown as it was then.
import type { LogEntry } from "./session-log.js";
import { estimateMessages } from "./token-estimate.js";

export function compactionNotice(entry: Extract<LogEntry, { type: "compaction" }>): string {
  const request = `about ${entry.tokensBefore} → ${entry.tokensAfter} tokens`;
  if (entry.level === undefined || entry.replacedTokens === undefined) {
    return `conversation compacted: ${entry.turns === 1 ? "1 turn" : `${entry.turns} turns`} → summary (${request})`;
  }
  const summaryTokens = estimateMessages([{ role: "summary", text: entry.summary }]);
  const summary = `(about ${entry.replacedTokens} tokens) → a summary of about ${summaryTokens} tokens, at most half of what it replaces`;
  if (entry.level === "hard") {
    const before = entry.turns === 1 ? "the turn before this one" : `all ${entry.turns} turns before this one`;
    return `conversation compacted hard, the request being still too long: ${before} ${summary}; this turn is kept word for word (the request: ${request})`;
  }
  const earlier = entry.turns === 1 ? "1 earlier turn" : `${entry.turns} earlier turns`;
  return `conversation compacted: ${earlier} ${summary}; the latest turns, this one among them, are kept word for word (the request: ${request})`;
}
