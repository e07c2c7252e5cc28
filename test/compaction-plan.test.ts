// Which part of a conversation a compaction summarises: cuts at message starts only, recent turns kept whole.
import { describe, expect, it } from "vitest";
import { KEEP_TURNS, planCompaction } from "../workers/context/compaction-plan.js";
import type { ChatMessage } from "../workers/models/model.js";

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
    expect(plan.request).toBeNull();
  });

  it("normal: keeps fewer turns when the recent ones are large, but always the current one", () => {
    const big: ChatMessage[] = [{ role: "user", text: "x".repeat(3000) }, { role: "assistant", blocks: ["y".repeat(3000)], toolCalls: [] }];
    const history = [...turn(0), ...big, ...turn(2)];
    const plan = planCompaction(history, "normal", 1000)!;
    expect(history[plan.cut]).toEqual({ role: "user", text: "question 2" });
    expect(plan.turns).toBe(2);
  });

  it("normal: nothing to summarise when only the current turn (after a summary) is there", () => {
    const history: ChatMessage[] = [{ role: "summary", text: "before" }, ...turn(1, true)];
    expect(planCompaction(history, "normal", 100_000)).toBeNull();
  });

  it("hard: keeps only the current turn's last answer with its tool results; the request goes into the summary", () => {
    const history: ChatMessage[] = [
      ...turn(0),
      { role: "user", text: "do it" },
      { role: "assistant", blocks: [], toolCalls: [{ id: "a", name: "bash", input: {} }] },
      { role: "tool", toolCallId: "a", name: "bash", result: "1", isError: false },
      { role: "assistant", blocks: [], toolCalls: [{ id: "b", name: "bash", input: {} }, { id: "c", name: "read_file", input: {} }] },
      { role: "tool", toolCallId: "b", name: "bash", result: "2", isError: false },
      { role: "tool", toolCallId: "c", name: "read_file", result: "3", isError: false },
    ];
    const plan = planCompaction(history, "hard", 100_000)!;
    expect(history.slice(plan.cut).map((m) => m.role)).toEqual(["assistant", "tool", "tool"]);
    expect(plan.request).toBe("do it");
    expect(plan.turns).toBe(2);
  });

  it("hard: with no answer yet in the current turn, everything is summarised; nothing left gives null", () => {
    const history: ChatMessage[] = [...turn(0), { role: "user", text: "now" }];
    const plan = planCompaction(history, "hard", 100_000)!;
    expect(plan.cut).toBe(history.length);
    expect(plan.request).toBe("now");
    expect(planCompaction([{ role: "summary", text: "all of it" }], "hard", 100_000)).toBeNull();
  });
});
