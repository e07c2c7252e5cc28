// Reasoning (reasoning_content) through a real host: shown as agent_thought_chunk before the message it led to,
// journaled and replayed by session/load; DeepSeek gets the current turn's reasoning back and never an earlier
// turn's, other servers never get it back. Usage carries the cached-prompt tokens in _meta.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

const KEY = "sk-test-reasoning";

describe("reasoning as thought chunks", () => {
  let server: OpenAiTestServer;
  const hosts: TestHost[] = [];
  const deepseek = async (stateDir: string) => {
    const host = await startHost(
      [
        "--state-dir",
        stateDir,
        "--model-provider",
        "deepseek",
        "--base-url",
        server.url,
        "--model",
        "deepseek-reasoner",
        "--default-mode",
        "auto",
      ],
      "deny",
      { ...process.env, DEEPSEEK_API_KEY: KEY },
    );
    hosts.push(host);
    return host;
  };

  beforeAll(async () => {
    server = await OpenAiTestServer.start({ apiKey: KEY });
  });
  afterAll(async () => {
    for (const host of hosts) await host.dispose();
    await server?.close();
  });

  it("thoughts come before their message, in order, and replay after a restart exactly as they were shown", async () => {
    const stateDir = tempDir();
    const cwd = tempDir();
    const host = await deepseek(stateDir);
    const { sessionId } = await host.client.newSession(cwd);

    server.enqueue({ reasoning: "The user greets me. I should greet back.", text: "Hello!", chunkChars: 3 });
    const first = await host.client.prompt(sessionId, "hi");
    expect(transcript(first.updates)).toEqual(["thought: The user greets me. I should greet back.", "agent: Hello!"]);

    const before = server.requests.length;
    server.enqueue(
      {
        reasoning: "I need to see the directory.",
        toolCalls: [{ id: "call_ls", name: "list_dir", arguments: { path: "." } }],
      },
      { reasoning: "It is empty.", text: "The directory is empty." },
    );
    const second = await host.client.prompt(sessionId, "what is here?");
    expect(second.updates.map((u) => u.sessionUpdate)).toEqual([
      "agent_thought_chunk",
      "usage_update",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "agent_thought_chunk",
      "agent_message_chunk",
      "usage_update",
    ]);
    expect(transcript(second.updates).filter((line) => line.startsWith("thought"))).toEqual([
      "thought: I need to see the directory.",
      "thought: It is empty.",
    ]);

    // Within the turn the tool call's reasoning goes back; the first turn's never does.
    const followUp = server.requests[before + 1]!.body.messages;
    const assistants = followUp.filter((m) => m.role === "assistant");
    expect(assistants[0]).toMatchObject({ content: "Hello!" });
    expect(assistants[0]).not.toHaveProperty("reasoning_content");
    expect(assistants[1]).toMatchObject({
      reasoning_content: "I need to see the directory.",
      tool_calls: [{ id: "call_ls" }],
    });

    server.enqueue({ reasoning: "Short.", text: "Bye." });
    await host.client.prompt(sessionId, "bye");
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain("reasoning_content");

    // Journaled with their messages; a restarted host replays them where they were.
    const thoughts = logEntries(stateDir, sessionId).flatMap((entry) =>
      entry.type === "assistant_message" && entry.thought ? [entry.thought] : [],
    );
    expect(thoughts).toEqual([
      "The user greets me. I should greet back.",
      "I need to see the directory.",
      "It is empty.",
      "Short.",
    ]);
    await host.dispose();
    const restarted = await deepseek(stateDir);
    const replayed = transcript(await restarted.client.load(sessionId, cwd));
    expect(replayed).toEqual([
      "user: hi",
      "thought: The user greets me. I should greet back.",
      "agent: Hello!",
      "user: what is here?",
      "thought: I need to see the directory.",
      `tool call#1: List . {"path":"."}`,
      "tool call#1 completed: . is empty",
      "thought: It is empty.",
      "agent: The directory is empty.",
      "user: bye",
      "thought: Short.",
      "agent: Bye.",
    ]);
  });

  it("usage_update carries DeepSeek's cached-prompt tokens and the session's sums in _meta", async () => {
    const host = await deepseek(tempDir());
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue({
      text: "one",
      usage: { prompt_tokens: 1000, completion_tokens: 10, prompt_cache_hit_tokens: 0, prompt_cache_miss_tokens: 1000 },
    });
    await host.client.prompt(sessionId, "first");
    server.enqueue({
      text: "two",
      usage: {
        prompt_tokens: 1100,
        completion_tokens: 20,
        prompt_cache_hit_tokens: 1000,
        prompt_cache_miss_tokens: 100,
      },
    });
    const second = await host.client.prompt(sessionId, "second");
    const usage = second.updates.find((u) => u.sessionUpdate === "usage_update");
    expect(usage).toMatchObject({
      used: 1120,
      size: 128_000,
      _meta: {
        "acp-session-host": {
          tokens: { prompt: 1100, completion: 20, cached: 1000 },
          session: { prompt: 2100, completion: 30, cached: 1000 },
        },
      },
    });
  });
});

describe("reasoning with another server", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    host = await startHost([...server.hostArgs("qwen3"), "--default-mode", "auto"]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("is shown but never sent back, even within the turn; OpenAI's cached_tokens are reported", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue(
      { reasoning: "Let me look.", toolCalls: [{ id: "call_ls", name: "list_dir", arguments: { path: "." } }] },
      {
        reasoning: "Done.",
        text: "Nothing here.",
        usage: { prompt_tokens: 500, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 384 } },
      },
    );
    const result = await host.client.prompt(sessionId, "look");
    expect(transcript(result.updates).filter((line) => line.startsWith("thought"))).toEqual([
      "thought: Let me look.",
      "thought: Done.",
    ]);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).not.toContain("reasoning_content");
    expect(result.updates.findLast((u) => u.sessionUpdate === "usage_update")).toMatchObject({
      _meta: { "acp-session-host": { tokens: { prompt: 500, completion: 5, cached: 384 } } },
    });
  });
});
