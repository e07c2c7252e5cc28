// Which part of a conversation a compaction summarises: cuts at user messages only, recent turns kept whole, the turn
// in flight never summarised, and the summary held to half of what it replaces.
import { describe, expect, it } from "vitest";
import { KEEP_TURNS, MIN_SUMMARY_TOKENS, planCompaction } from "../../workers/context/compaction-plan.js";
import { estimateMessages } from "../../workers/context/token-estimate.js";
import type { ChatMessage } from "../../workers/models/model.js";

function turn(n: number, withTool = false): ChatMessage[] {
  const user: ChatMessage = { role: "user", text: `question ${n}` };
  if (!withTool) return [user, { role: "assistant", blocks: [`answer ${n}`], toolCalls: [] }];
  return [
    user,
    { role: "assistant", blocks: [], toolCalls: [{ id: `c${n}`, name: "bash", input: { command: "ls" } }] },
    { role: "tool", toolCallId: `c${n}`, name: "bash", result: "a\nb", isError: false },
    { role: "assistant", blocks: [`answer ${n}`], toolCalls: [] },
  ];
}

describe("compaction plan", () => {
  it("normal: keeps the last turns whole (at most KEEP_TURNS) and summarises the rest", () => {
    const history = Array.from({ length: 10 }, (_, n) => turn(n, n % 2 === 0)).flat();
    const plan = planCompaction(history, "normal", 100_000)!;
    const kept = history.slice(plan.cut);
    expect(kept[0]).toEqual({ role: "user", text: `question ${10 - KEEP_TURNS}` });
    expect(kept.filter((m) => m.role === "user")).toHaveLength(KEEP_TURNS);
    expect(plan.turns).toBe(10 - KEEP_TURNS);
  });

  it("normal: keeps fewer turns when the recent ones are large, but always the current one", () => {
    const big: ChatMessage[] = [
      { role: "user", text: "x".repeat(3000) },
      { role: "assistant", blocks: ["y".repeat(3000)], toolCalls: [] },
    ];
    const history = [...turn(0), ...big, ...turn(2)];
    const plan = planCompaction(history, "normal", 1000)!;
    expect(history[plan.cut]).toEqual({ role: "user", text: "question 2" });
    expect(plan.turns).toBe(2);
  });

  it("normal: nothing to summarise when only the current turn (after a summary) is there", () => {
    const history: ChatMessage[] = [{ role: "summary", text: "before" }, ...turn(1, true)];
    expect(planCompaction(history, "normal", 100_000)).toBeNull();
  });

  it("hard: summarises every turn before the current one; the current turn, its tool calls and results, stays whole", () => {
    const history: ChatMessage[] = [
      ...turn(0, true),
      ...turn(1),
      { role: "user", text: "do it" },
      { role: "assistant", blocks: [], toolCalls: [{ id: "a", name: "bash", input: {} }] },
      { role: "tool", toolCallId: "a", name: "bash", result: "1", isError: false },
      {
        role: "assistant",
        blocks: [],
        toolCalls: [
          { id: "b", name: "bash", input: {} },
          { id: "c", name: "read_file", input: {} },
        ],
      },
      { role: "tool", toolCallId: "b", name: "bash", result: "2", isError: false },
      { role: "tool", toolCallId: "c", name: "read_file", result: "3", isError: false },
    ];
    const plan = planCompaction(history, "hard", 100_000)!;
    expect(history[plan.cut]).toEqual({ role: "user", text: "do it" });
    expect(history.slice(plan.cut).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "tool",
    ]);
    expect(plan.turns).toBe(2);
  });

  it("hard: the current turn's message is never summarised, even when it is all there is after a summary", () => {
    const history: ChatMessage[] = [
      ...Array.from({ length: 4 }, (_, n) => turn(n, true)).flat(),
      { role: "user", text: "now" },
    ];
    const plan = planCompaction(history, "hard", 100_000)!;
    expect(history[plan.cut]).toEqual({ role: "user", text: "now" });
    expect(
      planCompaction(
        [
          { role: "summary", text: "all of it" },
          { role: "user", text: "now" },
        ],
        "hard",
        100_000,
      ),
    ).toBeNull();
    expect(planCompaction([{ role: "user", text: "only this" }], "hard", 100_000)).toBeNull();
  });

  it("the summary may take at most half of what it replaces; a part too small for a summary is not compacted", () => {
    const history = Array.from({ length: 10 }, (_, n) => turn(n, true)).flat();
    for (const level of ["normal", "hard"] as const) {
      const plan = planCompaction(history, level, 100_000)!;
      expect(plan.replacedTokens).toBe(estimateMessages(history.slice(0, plan.cut)));
      expect(plan.summaryTokens).toBe(Math.floor(plan.replacedTokens / 2));
    }
    const tiny: ChatMessage[] = [
      { role: "user", text: "hi" },
      { role: "assistant", blocks: ["hello"], toolCalls: [] },
      { role: "user", text: "now" },
    ];
    expect(estimateMessages(tiny.slice(0, 2))).toBeLessThan(2 * MIN_SUMMARY_TOKENS);
    expect(planCompaction(tiny, "hard", 100_000)).toBeNull();
  });
});
