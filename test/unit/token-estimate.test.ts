// The cheap token estimate errs high against the usual 4 characters a token, and counts tools and framing.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../workers/models/model.js";
import { estimateMessages, estimateRequest, estimateTokens } from "../../workers/context/token-estimate.js";

describe("token estimate", () => {
  it("counts about 3 characters a token, rounding up", () => {
    expect(estimateTokens("")).toBe(0);
    expect(estimateTokens("a")).toBe(1);
    expect(estimateTokens("abcdef")).toBe(2);
    expect(estimateTokens("x".repeat(4000))).toBeGreaterThan(4000 / 4);
  });

  it("a conversation costs at least its JSON at 4 characters a token, plus framing per message", () => {
    const messages: ChatMessage[] = [
      { role: "user", text: "list the files" },
      { role: "assistant", blocks: ["Looking."], toolCalls: [{ id: "c1", name: "list_dir", input: { path: "." } }] },
      { role: "tool", toolCallId: "c1", name: "list_dir", result: "a.txt\nb.txt", isError: false },
    ];
    const json = JSON.stringify(messages).length;
    expect(estimateMessages(messages)).toBeGreaterThan(json / 4);
    expect(estimateMessages(messages)).toBe(messages.reduce((n, m) => n + estimateTokens(JSON.stringify(m)) + 4, 0));
  });

  it("a request adds the system prompt and the tool definitions", () => {
    const messages: ChatMessage[] = [{ role: "user", text: "hi" }];
    const tools = [
      {
        name: "bash",
        description: "run a command",
        parameters: { type: "object", properties: { command: { type: "string" } } },
      },
    ];
    const bare = estimateRequest(messages, []);
    expect(bare).toBeGreaterThan(estimateMessages(messages));
    expect(estimateRequest(messages, tools)).toBe(bare + estimateTokens(JSON.stringify(tools)));
  });
});
