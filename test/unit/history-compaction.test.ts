// A session's history rebuilt from its log: a compaction entry replaces what came before its kept messages.
import { describe, expect, it } from "vitest";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import type { JournalEntry } from "../../workers/log/journal.js";

const historyFrom = (entries: readonly JournalEntry[]) =>
  foldLog(emptyState({ mode: "ask", model: { provider: "scripted", model: "scripted", retries: 0 } }), entries).history;

const turn = (n: number): JournalEntry[] => [
  { type: "turn_start", turnId: `t${n}`, at: "2026-01-01T00:00:00.000Z" },
  { type: "user_message", turnId: `t${n}`, text: `q${n}` },
  { type: "assistant_message", turnId: `t${n}`, blocks: [`a${n}`], toolCalls: [], thought: `th${n}` },
  { type: "turn_end", turnId: `t${n}`, stopReason: "end_turn" },
];
const compaction = (kept: number, summary: string): JournalEntry => ({
  type: "compaction",
  turnId: "t",
  kept,
  summary,
  turns: 1,
  tokensBefore: 10,
  tokensAfter: 5,
});

describe("history with compactions", () => {
  it("keeps the last `kept` messages after the summary; later entries follow; a second compaction folds the first", () => {
    const entries = [...turn(1), ...turn(2), ...turn(3), compaction(2, "S1"), ...turn(4)];
    expect(historyFrom(entries)).toEqual([
      { role: "summary", text: "S1" },
      { role: "user", text: "q3" },
      { role: "assistant", blocks: ["a3"], toolCalls: [], thought: "th3" },
      { role: "user", text: "q4" },
      { role: "assistant", blocks: ["a4"], toolCalls: [], thought: "th4" },
    ]);
    expect(historyFrom([...entries, compaction(0, "S2")])).toEqual([{ role: "summary", text: "S2" }]);
  });
});
