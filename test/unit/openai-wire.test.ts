// The provider's pure pieces, on inputs the local server does not produce: servers that leave out tool-call indexes
// or ids, histories restored from a log, Retry-After in its several spellings, the backoff's bounds.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import { toOpenAiMessages, toOpenAiTools } from "../../workers/models/openai-messages.js";
import { ChunkAssembler, StreamIncomplete } from "../../workers/gateway/openai-stream.js";
import { contextWindow } from "../../workers/models/context-windows.js";
import { backoffMs, retryAfterMs, RETRY_MAX_MS } from "../../workers/models/retry.js";

type Delta = ChatCompletionChunk.Choice.Delta;
type ToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;
const chunk = (
  delta: Delta,
  finish: ChatCompletionChunk.Choice["finish_reason"] = null,
  usage?: ChatCompletionChunk["usage"],
): ChatCompletionChunk => ({
  id: "c",
  object: "chat.completion.chunk",
  created: 0,
  model: "m",
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  ...(usage ? { usage } : {}),
});

describe("chunk assembly", () => {
  it("calls without index are told apart by their ids; a call without id gets a unique one", () => {
    const assembler = new ChunkAssembler();
    assembler.add(
      chunk({ tool_calls: [{ id: "a", function: { name: "read_", arguments: '{"pa' } } as ToolCallDelta] }),
    );
    assembler.add(chunk({ tool_calls: [{ function: { name: "file", arguments: 'th":"x"}' } } as ToolCallDelta] }));
    assembler.add(chunk({ tool_calls: [{ id: "b", function: { name: "list_dir", arguments: "" } } as ToolCallDelta] }));
    assembler.add(chunk({}, "tool_calls"));
    expect(assembler.finish().toolCalls).toEqual([
      { id: "a", name: "read_file", input: { path: "x" } },
      { id: "b", name: "list_dir", input: {} },
    ]);

    const noIds = new ChunkAssembler();
    noIds.add(chunk({ tool_calls: [{ index: 0, function: { name: "t", arguments: "{}" } }] }));
    noIds.add(chunk({ tool_calls: [{ index: 1, function: { name: "t", arguments: "{}" } }] }));
    noIds.add(chunk({}, "tool_calls"));
    const [first, second] = noIds.finish().toolCalls;
    expect(first!.id).toMatch(/^call_/);
    expect(second!.id).not.toBe(first!.id);
  });

  it("'stop' with tool calls means tool_calls; arguments that are not JSON stay a string for the tool's check", () => {
    const assembler = new ChunkAssembler();
    assembler.add(chunk({ content: "x" }));
    assembler.add(chunk({ tool_calls: [{ index: 0, id: "a", function: { name: "bash", arguments: "{not json" } }] }));
    assembler.add(chunk({}, "stop", { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 }));
    expect(assembler.finish()).toEqual({
      text: "x",
      thought: "",
      toolCalls: [{ id: "a", name: "bash", input: "{not json" }],
      finish: "tool_calls",
      usage: { totalTokens: 7, promptTokens: 5, completionTokens: 2, cachedTokens: null },
    });
  });

  it("a stream that ends without a finish reason is incomplete", () => {
    const assembler = new ChunkAssembler();
    assembler.add(chunk({ content: "half an ans" }));
    expect(() => assembler.finish()).toThrow(StreamIncomplete);
  });
});

describe("history → chat messages", () => {
  it("every tool call is answered exactly once, even when the log lacks a result; strays are dropped", () => {
    const messages = toOpenAiMessages("sys", [
      { role: "user", text: "go" },
      {
        role: "assistant",
        blocks: [],
        toolCalls: [
          { id: "c1", name: "bash", input: { command: "ls" } },
          { id: "c2", name: "bash", input: "{raw" },
        ],
      },
      { role: "tool", toolCallId: "c1", name: "bash", result: "a\nb", isError: false },
      { role: "tool", toolCallId: "zz", name: "bash", result: "stray", isError: false },
      { role: "user", text: "and?" },
      { role: "assistant", blocks: ["", ""], toolCalls: [] },
      { role: "user", text: "hello?" },
    ]);
    expect(messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "c1", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } },
          { id: "c2", type: "function", function: { name: "bash", arguments: "{raw" } },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "a\nb" },
      { role: "tool", tool_call_id: "c2", content: "tool call not run" },
      { role: "user", content: "and?\n\nhello?" },
    ]);
  });

  it("a failed tool result says so; tool schemas lose their $schema key", () => {
    const messages = toOpenAiMessages(null, [
      { role: "assistant", blocks: ["b"], toolCalls: [{ id: "c", name: "t", input: {} }] },
      { role: "tool", toolCallId: "c", name: "t", result: "boom", isError: true },
    ]);
    expect(messages.at(-1)).toEqual({ role: "tool", tool_call_id: "c", content: "Error: boom" });
    const [tool] = toOpenAiTools([
      {
        name: "t",
        description: "d",
        parameters: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" },
      },
    ]);
    expect(tool).toEqual({
      type: "function",
      function: { name: "t", description: "d", parameters: { type: "object" } },
    });
  });
});

describe("retry timing", () => {
  it("backoff doubles from 0.5 s, half of it jitter, capped at 8 s", () => {
    expect([0, 1, 2].map((n) => backoffMs(n, () => 0))).toEqual([250, 500, 1000]);
    expect([0, 1, 2].map((n) => backoffMs(n, () => 1))).toEqual([500, 1000, 2000]);
    expect(backoffMs(10, () => 1)).toBe(RETRY_MAX_MS);
    expect(backoffMs(10, () => 0)).toBe(RETRY_MAX_MS / 2);
  });

  it("the server's retry-after-ms or retry-after (seconds or date) wins, capped at 60 s", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after-ms": "120" }), now)).toBe(120);
    expect(retryAfterMs(new Headers({ "retry-after": "2" }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:03 GMT" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "3600" }), now)).toBe(60_000);
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(retryAfterMs(new Headers(), now)).toBeNull();
  });
});

describe("context window", () => {
  it("configured wins, then the longest known prefix, then 128k", () => {
    expect(contextWindow("gpt-4o-mini", 8192)).toBe(8192);
    expect(contextWindow("gpt-4o-mini", undefined)).toBe(128_000);
    expect(contextWindow("gpt-4.1-mini", undefined)).toBe(1_047_576);
    expect(contextWindow("deepseek-chat", undefined)).toBe(128_000);
    expect(contextWindow("llama3.1:8b", undefined)).toBe(128_000);
  });
});
