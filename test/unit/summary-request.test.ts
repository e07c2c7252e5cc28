// The summary request's input fits its budget: oldest messages go first (an earlier summary stays), then long texts
// are clipped; the model is asked for a length, and a longer summary is clipped to what the plan allows.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../workers/models/model.js";
import { summaryInput, summaryPrompt, summaryText, summaryWords } from "../../workers/context/summary-request.js";
import { estimateMessages } from "../../workers/context/token-estimate.js";

describe("summary request", () => {
  it("a prefix within budget goes whole, followed by the instruction", () => {
    const prefix: ChatMessage[] = [
      { role: "user", text: "a" },
      { role: "assistant", blocks: ["b"], toolCalls: [] },
    ];
    expect(summaryInput(prefix, 1000, 120)).toEqual([...prefix, { role: "user", text: summaryPrompt(120) }]);
    expect(summaryPrompt(120)).toMatch(/Keep it under 120 words\.$/);
  });

  it("over budget: the oldest messages are dropped, an earlier summary is kept", () => {
    const prefix: ChatMessage[] = [
      { role: "summary", text: "earlier" },
      ...Array.from({ length: 50 }, (_, n): ChatMessage => ({ role: "user", text: `message ${n} ${"z".repeat(100)}` })),
    ];
    const input = summaryInput(prefix, 400, 100);
    expect(input[0]).toEqual({ role: "summary", text: "earlier" });
    expect(input.at(-2)).toEqual(prefix.at(-1));
    expect(estimateMessages(input.slice(0, -1))).toBeLessThanOrEqual(400);
    expect(input.length).toBeLessThan(prefix.length);
  });

  it("one message larger than the budget is clipped to its head and tail", () => {
    const text = `HEAD${"m".repeat(100_000)}TAIL`;
    const [clipped] = summaryInput(
      [{ role: "tool", toolCallId: "c", name: "bash", result: text, isError: false }],
      1000,
      100,
    );
    expect(clipped).toMatchObject({ role: "tool" });
    const result = clipped!.role === "tool" ? clipped!.result : "";
    expect(result.startsWith("HEAD")).toBe(true);
    expect(result.endsWith("TAIL")).toBe(true);
    expect(result).toContain("characters left out");
    expect(result.length).toBeLessThan(5000);
  });

  it("the stored summary is the model's words, clipped to its head and tail when it would take more than allowed", () => {
    expect(summaryText("  did x  ", 100)).toBe("did x");
    expect(summaryText("", 100)).toContain("no summary");
    const long = `FIRST ${'words and "quotes"\n'.repeat(2000)} LAST`;
    for (const allowed of [64, 200, 1000]) {
      const kept = summaryText(long, allowed);
      expect(estimateMessages([{ role: "summary", text: kept }])).toBeLessThanOrEqual(allowed);
      expect(kept.startsWith("FIRST")).toBe(true);
      expect(kept.endsWith("LAST")).toBe(true);
      expect(kept).toContain("characters left out");
    }
  });

  it("the words asked for fit in what the summary may take", () => {
    for (const allowed of [64, 500, 5000]) {
      const words = summaryWords(allowed);
      const answer = Array.from({ length: words }, () => "word5").join(" ");
      expect(estimateMessages([{ role: "summary", text: answer }])).toBeLessThanOrEqual(allowed);
    }
  });
});
