// The summary request's input fits its budget: oldest messages go first (an earlier summary stays), then long texts
// are clipped; the user's current request survives a hard compaction word for word.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../workers/models/model.js";
import { SUMMARY_PROMPT, summaryInput, summaryText } from "../workers/context/summary-request.js";
import { estimateMessages } from "../workers/context/token-estimate.js";

describe("summary request", () => {
  it("a prefix within budget goes whole, followed by the instruction", () => {
    const prefix: ChatMessage[] = [{ role: "user", text: "a" }, { role: "assistant", blocks: ["b"], toolCalls: [] }];
    expect(summaryInput(prefix, 1000)).toEqual([...prefix, { role: "user", text: SUMMARY_PROMPT }]);
  });

  it("over budget: the oldest messages are dropped, an earlier summary is kept", () => {
    const prefix: ChatMessage[] = [
      { role: "summary", text: "earlier" },
      ...Array.from({ length: 50 }, (_, n): ChatMessage => ({ role: "user", text: `message ${n} ${"z".repeat(100)}` })),
    ];
    const input = summaryInput(prefix, 400);
    expect(input[0]).toEqual({ role: "summary", text: "earlier" });
    expect(input.at(-2)).toEqual(prefix.at(-1));
    expect(estimateMessages(input.slice(0, -1))).toBeLessThanOrEqual(400);
    expect(input.length).toBeLessThan(prefix.length);
  });

  it("one message larger than the budget is clipped to its head and tail", () => {
    const text = `HEAD${"m".repeat(100_000)}TAIL`;
    const [clipped] = summaryInput([{ role: "tool", toolCallId: "c", name: "bash", result: text, isError: false }], 1000);
    expect(clipped).toMatchObject({ role: "tool" });
    const result = clipped!.role === "tool" ? clipped!.result : "";
    expect(result.startsWith("HEAD")).toBe(true);
    expect(result.endsWith("TAIL")).toBe(true);
    expect(result).toContain("characters left out");
    expect(result.length).toBeLessThan(5000);
  });

  it("the stored summary carries the current request when the cut passed it", () => {
    expect(summaryText("  did x  ", null)).toBe("did x");
    expect(summaryText("did x", "now do y")).toBe("did x\n\nThe user's current request, word for word:\nnow do y");
    expect(summaryText("", null)).toContain("no summary");
  });
});
