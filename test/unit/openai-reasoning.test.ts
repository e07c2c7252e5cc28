// Reasoning on the wire: assembled from either field name, and sent back only where and when the provider wants it.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../workers/models/model.js";
import { SUMMARY_HEADING, toOpenAiMessages } from "../../workers/models/openai-messages.js";
import { ChunkAssembler } from "../../workers/gateway/openai-stream.js";

const chunk = (
  delta: Record<string, unknown>,
  finish: ChatCompletionChunk.Choice["finish_reason"] = null,
  usage?: Record<string, unknown>,
): ChatCompletionChunk =>
  ({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(usage ? { usage } : {}),
  }) as ChatCompletionChunk;

describe("reasoning and cached tokens in a stream", () => {
  it("reasoning_content and reasoning deltas assemble apart from the text; each chunk says what it added", () => {
    const assembler = new ChunkAssembler();
    expect(assembler.add(chunk({ content: null, reasoning_content: "Think" }))).toEqual({ text: "", thought: "Think" });
    assembler.add(chunk({ reasoning: "ing." }));
    expect(assembler.add(chunk({ content: "Answer" }))).toEqual({ text: "Answer", thought: "" });
    assembler.add(
      chunk({}, "stop", {
        prompt_tokens: 10,
        completion_tokens: 5,
        total_tokens: 15,
        prompt_cache_hit_tokens: 8,
        prompt_cache_miss_tokens: 2,
      }),
    );
    expect(assembler.finish()).toMatchObject({
      text: "Answer",
      thought: "Thinking.",
      usage: { totalTokens: 15, promptTokens: 10, completionTokens: 5, cachedTokens: 8 },
    });
  });

  it("OpenAI's prompt_tokens_details.cached_tokens is the cached count too", () => {
    const assembler = new ChunkAssembler();
    assembler.add(
      chunk({ content: "x" }, "stop", {
        prompt_tokens: 100,
        completion_tokens: 1,
        total_tokens: 101,
        prompt_tokens_details: { cached_tokens: 64 },
      }),
    );
    expect(assembler.finish().usage).toEqual({
      totalTokens: 101,
      promptTokens: 100,
      completionTokens: 1,
      cachedTokens: 64,
    });
  });
});

describe("reasoning sent back", () => {
  const history: ChatMessage[] = [
    { role: "user", text: "first" },
    { role: "assistant", blocks: ["one"], toolCalls: [], thought: "old thought" },
    { role: "user", text: "second" },
    {
      role: "assistant",
      blocks: [],
      toolCalls: [{ id: "c1", name: "bash", input: { command: "ls" } }],
      thought: "current thought",
    },
    { role: "tool", toolCallId: "c1", name: "bash", result: "a", isError: false },
  ];

  it("current-turn (DeepSeek): the current turn's reasoning goes back as reasoning_content, earlier turns' never", () => {
    const assistants = toOpenAiMessages(null, history, "current-turn").filter((m) => m.role === "assistant");
    expect(assistants[0]).not.toHaveProperty("reasoning_content");
    expect(assistants[1]).toMatchObject({ reasoning_content: "current thought" });
  });

  it("none (every other server): no reasoning goes back", () => {
    const messages = toOpenAiMessages(null, history, "none");
    expect(JSON.stringify(messages)).not.toContain("thought");
  });

  it("a compaction's summary ends the system message; the prompt after it stays a message of its own", () => {
    const messages = toOpenAiMessages("sys", [
      { role: "summary", text: "we did things" },
      { role: "user", text: "next" },
    ]);
    expect(messages).toEqual([
      { role: "system", content: `sys\n\n${SUMMARY_HEADING}\n\nwe did things` },
      { role: "user", content: "next" },
    ]);
    // Without a system message it is the first user message, merged with the prompt (no two user messages in a row).
    expect(
      toOpenAiMessages(null, [
        { role: "summary", text: "we did things" },
        { role: "user", text: "next" },
      ]),
    ).toEqual([{ role: "user", content: `${SUMMARY_HEADING}\n\nwe did things\n\nnext` }]);
  });
});
