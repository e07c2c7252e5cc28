// The words a client sees (agent_thought_chunk) when its session's conversation was compacted, live and on replay.
import type { JournalEntry } from "../log/journal.js";

export function compactionNotice(entry: Extract<JournalEntry, { type: "compaction" }>): string {
  const turns = entry.turns === 1 ? "1 turn" : `${entry.turns} turns`;
  return `conversation compacted: ${turns} → summary (about ${entry.tokensBefore} → ${entry.tokensAfter} tokens)`;
}
