// The openai-compatible provider through a real host over stdio, against a local chat-completions server.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { waitFor } from "../support/tools.js";

const KEY = "sk-test-provider";

describe("openai-compatible provider", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  const permissionRequests: string[] = [];

  beforeAll(async () => {
    server = await OpenAiTestServer.start({ apiKey: KEY });
    host = await startHost(
      // A long cancel grace: a cancelled turn must stop by aborting its request, not by losing its worker.
      [...server.hostArgs("test-model"), "--api-key-env", "TEST_PROVIDER_KEY", "--cancel-grace-ms", "60000"],
      (request) => {
        permissionRequests.push(request.toolCall.title ?? "");
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      },
      { ...process.env, TEST_PROVIDER_KEY: KEY },
    );
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  const newSession = async () => (await host.client.newSession(tempDir())).sessionId;

  it("a plain answer: one streamed completion, committed as one message", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({ text: "Hello from the model, in several chunks." });
    const result = await host.client.prompt(sessionId, "say hello");
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("Hello from the model, in several chunks.");
    expect(result.updates.filter((u) => u.sessionUpdate === "agent_message_chunk")).toHaveLength(1);

    expect(server.requests).toHaveLength(before + 1);
    const request = server.requests.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    // The key is read in the worker: it is in no log line of the host (which logs at debug here).
    expect(host.stderr()).not.toContain(KEY);
    expect(request.body).toMatchObject({ model: "test-model", stream: true, stream_options: { include_usage: true } });
    expect(request.body.messages[0]!.role).toBe("system");
    expect(request.body.messages.at(-1)).toEqual({ role: "user", content: "say hello" });
  });

  it("text and tool-call arguments split into one-character chunks assemble exactly", async () => {
    const sessionId = await newSession();
    const text = "Ünïcödé 🙂 across\nchunk boundaries — even inside a surrogate pair 👍🏽.";
    const input = { path: "src/ä b.txt", lines: [1, 2, 3], nested: { emoji: "🚀", quote: 'say "hi"' } };
    server.enqueue(
      { text, toolCalls: [{ name: "no_such_tool", arguments: input }], chunkChars: 1 },
      { text: "done", chunkChars: 1 },
    );
    const result = await host.client.prompt(sessionId, "split everything");
    expect(result.text).toBe(`${text}\n\ndone`);
    const call = result.updates.find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ rawInput: input });
    // The tool call went back to the server whole, with the same id and arguments.
    const followUp = server.requests.at(-1)!.body.messages;
    const assistant = followUp.find((m) => m.role === "assistant" && m.tool_calls);
    expect(assistant?.content).toBe(text);
    expect(JSON.parse(assistant!.tool_calls![0]!.function.arguments)).toEqual(input);
  });

  it("a tool call round trip: the model asks for bash and read_file, gets their results, answers", async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "notes.txt"), "alpha\nbeta\n");
    const { sessionId } = await host.client.newSession(cwd);
    const before = server.requests.length;
    server.enqueue(
      {
        text: "Let me look.",
        toolCalls: [
          { id: "call_bash", name: "bash", arguments: { command: "wc -l < notes.txt && echo from-bash" } },
          { id: "call_read", name: "read_file", arguments: { path: "notes.txt" } },
        ],
        chunkChars: 5,
      },
      { text: "notes.txt has 2 lines." },
    );
    const asked = permissionRequests.length;
    const result = await host.client.prompt(sessionId, "how long is notes.txt?");
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("Let me look.\n\nnotes.txt has 2 lines.");
    expect(result.toolCalls.map((call) => [call.kind, call.status])).toEqual([
      ["execute", "completed"],
      ["read", "completed"],
    ]);
    expect(result.toolCalls[0]!.output).toContain("from-bash");
    // bash went through the session's permission path (mode ask; this client allows).
    expect(permissionRequests.slice(asked)).toContain("wc -l < notes.txt && echo from-bash");

    // The tools were offered as JSON Schema; the results went back under the model's own call ids.
    const [first, second] = server.requests.slice(before);
    const bash = first!.body.tools?.find((tool) => tool.function.name === "bash");
    expect(bash?.function.parameters).toMatchObject({
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    });
    const messages = second!.body.messages;
    expect(messages.at(-3)).toMatchObject({
      role: "assistant",
      content: "Let me look.",
      tool_calls: [
        { id: "call_bash", type: "function", function: { name: "bash" } },
        { id: "call_read", type: "function", function: { name: "read_file" } },
      ],
    });
    expect(messages.at(-2)).toMatchObject({ role: "tool", tool_call_id: "call_bash" });
    expect(messages.at(-2)!.content).toMatch(/^2\nfrom-bash\n[\s\S]*exit code 0/);
    expect(messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_read", content: "alpha\nbeta" });
  });

  it("a call to an unknown tool round-trips as a failed tool result", async () => {
    const sessionId = await newSession();
    server.enqueue(
      { toolCalls: [{ id: "call_x", name: "no_such_tool", arguments: { q: 1 } }] },
      { text: "No such tool." },
    );
    const result = await host.client.prompt(sessionId, "use a tool");
    expect(result.text).toBe("No such tool.");
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed"]);
    expect(server.requests.at(-1)!.body.messages.at(-1)).toEqual({
      role: "tool",
      tool_call_id: "call_x",
      content:
        'Error: unknown tool "no_such_tool" (the tools are: bash, bash_output, bash_kill, read_file, write_file, edit_file, list_dir, update_plan, spawn_agent)',
    });
  });

  it("usage from the final chunk is reported as usage_update (size: the default context window)", async () => {
    const sessionId = await newSession();
    server.enqueue({ text: "counted", usage: { prompt_tokens: 1200, completion_tokens: 34 } });
    const result = await host.client.prompt(sessionId, "count");
    expect(result.usage).toEqual({ used: 1234, size: 128_000 });
    // Only a committed message precedes the usage of its response (after the title the first prompt gives).
    expect(result.updates.map((u) => u.sessionUpdate)).toEqual([
      "session_info_update",
      "agent_message_chunk",
      "usage_update",
    ]);
  });

  it("finish_reason length ends the turn with max_tokens; content_filter with refusal", async () => {
    const sessionId = await newSession();
    server.enqueue({ text: "This answer was cut o", finish: "length" });
    const cut = await host.client.prompt(sessionId, "write a lot");
    expect(cut.stopReason).toBe("max_tokens");
    expect(cut.text).toBe("This answer was cut o");

    server.enqueue({ text: "", finish: "content_filter" });
    expect((await host.client.prompt(sessionId, "something filtered")).stopReason).toBe("refusal");
  });

  it("a truncated answer's tool calls are not run, and the conversation stays valid for the next prompt", async () => {
    const sessionId = await newSession();
    server.enqueue({ toolCalls: [{ name: "no_such_tool", arguments: '{"cut": "of' }], finish: "length" });
    const cut = await host.client.prompt(sessionId, "call something");
    expect(cut.stopReason).toBe("max_tokens");
    expect(cut.toolCalls).toHaveLength(0);
    server.enqueue({ text: "fine" });
    expect((await host.client.prompt(sessionId, "next")).text).toBe("fine");
    const messages = server.requests.at(-1)!.body.messages;
    expect(messages.some((m) => m.tool_calls)).toBe(false);
    // The cut-off answer said nothing usable, so it is left out and the two prompts read as one user message.
    expect(messages.filter((m) => m.role !== "system")).toEqual([{ role: "user", content: "call something\n\nnext" }]);
  });

  it("cancel mid-stream aborts the HTTP request at once and settles cancelled", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    // 100 chunks at 20 a second: five seconds unless the client hangs up.
    server.enqueue({ text: "slow".repeat(100), tokensPerSecond: 20, firstTokenMs: 10 });
    const turn = host.client.prompt(sessionId, "take your time");
    await server.waitForRequests(before + 1);
    const request = server.requests[before]!;
    // Mid-stream: the server has written some of the answer's chunks.
    await request.chunksWritten(3);
    await host.client.cancel(sessionId);
    const result = await turn;
    expect(result.stopReason).toBe("cancelled");
    expect(result.text).toBe("");
    expect(await request.ended).toBe("client-closed");
    // The session takes the next prompt.
    server.enqueue({ text: "back" });
    expect((await host.client.prompt(sessionId, "again")).text).toBe("back");
  });

  it(
    "cancel while a 429 pauses the endpoint ends the turn at once, without another attempt",
    { timeout: 20_000 },
    async () => {
      // A host of its own: the 60 s pause the server asks for is the whole endpoint's, as it would be at a provider.
      const paused = await OpenAiTestServer.start();
      const pausedHost = await startHost(paused.hostArgs("test-model"));
      try {
        const sessionId = (await pausedHost.client.newSession(tempDir())).sessionId;
        // The server asks for a 60 s wait; only an abortable wait lets this test end within its timeout.
        paused.enqueue({ fail: { status: 429, message: "Rate limit reached", retryAfterMs: 60_000 } });
        const turn = pausedHost.client.prompt(sessionId, "wait for it");
        await paused.waitForRequests(1);
        expect(await paused.requests[0]!.ended).toBe("completed");
        await pausedHost.client.cancel(sessionId);
        expect((await turn).stopReason).toBe("cancelled");
        expect(paused.requests).toHaveLength(1);
        expect(pausedHost.violations).toEqual([]);
      } finally {
        await pausedHost.dispose();
        await paused.close();
      }
    },
  );

  it("a 429 is waited out by the gateway (honouring retry-after-ms), then the answer arrives", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue(
      {
        fail: {
          status: 429,
          message: "Rate limit reached for requests",
          type: "requests",
          code: "rate_limit_exceeded",
          retryAfterMs: 20,
        },
      },
      { text: "after the limit" },
    );
    const result = await host.client.prompt(sessionId, "busy?");
    expect(result.text).toBe("after the limit");
    expect(server.requests.length - before).toBe(2);
    // The refusal is invisible to the client but in the host's log: the endpoint paused for the server's wait.
    const refusalLog = await waitFor("the refusal's log line", () =>
      host
        .stderr()
        .split("\n")
        .find(
          (line) => line.includes("the provider refused a request") && line.includes("Rate limit reached for requests"),
        ),
    );
    expect(JSON.parse(refusalLog!)).toMatchObject({ component: "model-gateway", model: "test-model" });
    expect(JSON.parse(refusalLog!).pauseMs).toBeGreaterThanOrEqual(15);
  });

  it("a 500 without retry-after is retried after a backoff", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue(
      { fail: { status: 500, message: "The server had an error while processing your request." } },
      { text: "recovered" },
    );
    expect((await host.client.prompt(sessionId, "flaky")).text).toBe("recovered");
    expect(server.requests.length - before).toBe(2);
  });

  it("a connection dropped mid-stream is retried; the partial answer is never shown", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue(
      { text: "PARTIAL-SHOULD-NOT-APPEAR and more", fail: { dropAfterChunks: 3 }, chunkChars: 2 },
      { text: "complete answer" },
    );
    const result = await host.client.prompt(sessionId, "drop");
    expect(result.text).toBe("complete answer");
    expect(server.requests.length - before).toBe(2);
    expect(await server.requests[before]!.ended).toBe("dropped");
  });

  it("a connection dropped before any answer is retried", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({ fail: { dropAfterChunks: 0 } }, { text: "second try" });
    expect((await host.client.prompt(sessionId, "drop early")).text).toBe("second try");
    expect(server.requests.length - before).toBe(2);
  });

  it("retries are bounded by --model-retries (3): four attempts, then an error naming the status", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    const overloaded = { fail: { status: 503, message: "The engine is currently overloaded", retryAfterMs: 5 } };
    server.enqueue(overloaded, overloaded, overloaded, overloaded, { text: "never asked for" });
    const failed = host.client.prompt(sessionId, "overloaded");
    await expect(failed).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      message: expect.stringMatching(/HTTP 503: The engine is currently overloaded.*after 4 attempts/),
    });
    expect(server.requests.length - before).toBe(4);
    expect((await host.client.prompt(sessionId, "later")).text).toBe("never asked for");
  });

  it("a 401 is not retried, fails the prompt with the status and the server's message, and the next prompt works", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({
      fail: {
        status: 401,
        message: "Incorrect API key provided: sk-wrong.",
        type: "invalid_request_error",
        code: "invalid_api_key",
      },
    });
    const failed = host.client.prompt(sessionId, "who am i");
    await expect(failed).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      message: `model "test-model" at ${server.url}: HTTP 401: Incorrect API key provided: sk-wrong.`,
    });
    expect(server.requests.length - before).toBe(1);
    server.enqueue({ text: "working again" });
    const next = await host.client.prompt(sessionId, "again");
    expect(next.text).toBe("working again");
    // The failed turn's prompt is still in the conversation, merged with the next one.
    expect(server.requests.at(-1)!.body.messages.at(-1)).toEqual({ role: "user", content: "who am i\n\nagain" });
  });

  it("other servers' error bodies still give the server's own message (vLLM, Ollama, FastAPI shapes)", async () => {
    const sessionId = await newSession();
    const bodies = [
      { object: "error", message: "The model `x` does not exist.", type: "NotFoundError", param: null, code: 404 },
      { error: "model 'x' not found, try pulling it first" },
      { detail: "Not Found: model x" },
    ];
    const expected = [
      "The model `x` does not exist.",
      "model 'x' not found, try pulling it first",
      "Not Found: model x",
    ];
    for (const [i, body] of bodies.entries()) {
      server.enqueue({ fail: { status: 404, message: "unused", body } });
      await expect(host.client.prompt(sessionId, `body ${i}`)).rejects.toMatchObject({
        message: `model "test-model" at ${server.url}: HTTP 404: ${expected[i]}`,
      });
    }
  });

  it("403 and 404 are not retried either", async () => {
    const sessionId = await newSession();
    for (const status of [403, 404]) {
      const before = server.requests.length;
      server.enqueue({ fail: { status, message: `refused with ${status}` } });
      await expect(host.client.prompt(sessionId, `try ${status}`)).rejects.toMatchObject({
        message: expect.stringContaining(`HTTP ${status}: refused with ${status}`),
        data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      });
      expect(server.requests.length - before).toBe(1);
    }
  });
});
