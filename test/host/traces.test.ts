// Traces (OTEL_TRACES_EXPORTER=otlp): one prompt whose client sent a traceparent becomes one trace, received by a
// real OTLP/HTTP receiver decoding the protobuf with OpenTelemetry's own proto definitions: the turn's invoke_agent
// span (main thread) under the client's span, a chat span per model request and retry (session worker, with the
// gateway's first-chunk time; the model server is sent the chat span as its traceparent), execute_tool spans with the
// sandboxed command beneath, and a child session's turn (its own worker) under the spawn_agent call. Nothing of a
// key, and no content without --trace-content. A receiver that is slow or failing costs turns nothing: spans are
// dropped and counted.
import { randomBytes } from "node:crypto";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { OtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver.js";
import { waitFor } from "../support/tools.js";

const KEY = `sk-test-${randomBytes(12).toString("hex")}`;
const hosts = hostsPerTest();
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function receiver(): Promise<OtlpReceiver> {
  const started = await OtlpReceiver.start();
  closers.push(() => started.close());
  return started;
}

async function modelServer(): Promise<OpenAiTestServer> {
  const started = await OpenAiTestServer.start();
  closers.push(() => started.close());
  return started;
}

async function tracedHost(otlp: OtlpReceiver, args: string[], env: NodeJS.ProcessEnv = {}): Promise<TestHost> {
  const host = await startHost(["--default-mode", "auto", ...args], "deny", {
    ...process.env,
    OTEL_TRACES_EXPORTER: "otlp",
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint,
    OTEL_BSP_SCHEDULE_DELAY: "50",
    OTEL_SERVICE_NAME: "traces-test",
    OPENAI_API_KEY: KEY,
    ...env,
  });
  hosts.push(host);
  return host;
}

function traceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = randomBytes(16).toString("hex");
  const spanId = randomBytes(8).toString("hex");
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}

describe("traces", () => {
  it("one prompt is one trace under the client's span: turn, model calls and a retry, tools, the command, a child session", async () => {
    const otlp = await receiver();
    const server = await modelServer();
    const host = await tracedHost(otlp, server.hostArgs());
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    server.enqueue(
      // A provider's error that quotes the key, as OpenAI's 401 quotes part of it: never in a span.
      { fail: { status: 503, message: `overloaded (key ${KEY})`, retryAfterMs: 1 } },
      { toolCalls: [{ id: "call_bash", name: "bash", arguments: { command: "echo traced-output" } }] },
      { toolCalls: [{ id: "call_child", name: "spawn_agent", arguments: { prompt: "child, say done" } }] },
      { text: "child done", usage: { prompt_tokens: 7, completion_tokens: 2 } },
      {
        text: "all done",
        usage: { prompt_tokens: 30, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 5 } },
      },
    );
    const client = traceparent();
    const result = await host.client.prompt(sessionId, "secret prompt text", { meta: { traceparent: client.header } });
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("all done");

    const isTurn = (span: ReceivedSpan, conversation: string) =>
      span.name === "invoke_agent acp-session-host" && span.attributes["gen_ai.conversation.id"] === conversation;
    const turn = await otlp.waitFor((span) => isTurn(span, sessionId));
    expect(turn).toMatchObject({ traceId: client.traceId, parentSpanId: client.spanId, kind: 2 });
    expect(turn.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "acp-session-host",
      "gen_ai.request.model": "m",
      "acp_host.stop_reason": "end_turn",
      "acp_host.session.mode": "auto",
    });
    expect(turn.resource["service.name"]).toBe("traces-test");

    const bashTool = await otlp.waitFor((span) => span.name === "execute_tool bash");
    const spawnTool = await otlp.waitFor((span) => span.name === "execute_tool spawn_agent");
    const command = await otlp.waitFor((span) => span.name === "sandbox.exec");
    const childId = /child session ([0-9a-f-]{36})/.exec(
      (result.toolCalls.find((call) => call.title?.startsWith("spawn_agent"))!.rawOutput as { output: string }).output,
    )![1]!;
    const childTurn = await otlp.waitFor((span) => isTurn(span, childId));
    const chats = await waitFor("five chat spans", () => {
      const found = otlp.spans.filter((span) => span.name === "chat m");
      return found.length === 5 ? found : undefined;
    });

    // One trace, correctly parented: the parent's model calls and tools under its turn, the command under bash,
    // the child's turn under spawn_agent, the child's model call under the child's turn.
    for (const span of [bashTool, spawnTool, command, childTurn, ...chats]) expect(span.traceId).toBe(client.traceId);
    expect(bashTool.parentSpanId).toBe(turn.spanId);
    expect(spawnTool.parentSpanId).toBe(turn.spanId);
    expect(command.parentSpanId).toBe(bashTool.spanId);
    expect(childTurn.parentSpanId).toBe(spawnTool.spanId);
    const childChats = chats.filter((span) => span.parentSpanId === childTurn.spanId);
    const parentChats = chats.filter((span) => span.parentSpanId === turn.spanId);
    expect(childChats).toHaveLength(1);
    expect(parentChats).toHaveLength(4);

    expect(bashTool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "bash",
      "gen_ai.tool.call.id": "call_bash",
    });
    expect(command.attributes).toMatchObject({ "process.exit.code": 0, "acp_host.command.end": "exited" });
    expect(command.attributes["acp_host.command.output_bytes"]).toBeGreaterThan(0);

    const [failed, ...answered] = parentChats.sort((a, b) => Number(a.startNs - b.startNs));
    expect(failed!.status.code).toBe(2);
    expect(failed!.attributes).toMatchObject({ "error.type": "503", "gen_ai.request.model": "m" });
    expect(answered[0]!.attributes).toMatchObject({ "acp_host.model.retry": 1 });
    expect(answered[0]!.attributes["acp_host.model.retry_reason"]).toMatch(/503/);
    expect(answered.map((span) => span.attributes["gen_ai.response.finish_reasons"])).toEqual([
      ["tool_calls"],
      ["tool_calls"],
      ["stop"],
    ]);
    const last = answered[2]!;
    expect(last.kind).toBe(3);
    expect(last.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.usage.input_tokens": 30,
      "gen_ai.usage.output_tokens": 3,
      "gen_ai.usage.cache_read.input_tokens": 5,
      "server.address": "127.0.0.1",
    });
    // The gateway's clock: the first chunk came between the request's start and its end.
    const firstChunk = last.events.find((event) => event.name === "gen_ai.first_chunk");
    expect(firstChunk).toBeDefined();
    expect(firstChunk!.timeNs).toBeGreaterThanOrEqual(last.startNs);
    expect(firstChunk!.timeNs).toBeLessThanOrEqual(last.endNs);
    expect(childChats[0]!.attributes).toMatchObject({ "gen_ai.usage.input_tokens": 7 });

    // The model server was told each answered request's span as its traceparent.
    const sent = server.requests.map((request) => request.headers.traceparent);
    for (const span of [...answered, childChats[0]!]) expect(sent).toContain(`00-${span.traceId}-${span.spanId}-01`);

    // No key anywhere in the export, and no content without --trace-content.
    const exported = Buffer.concat(otlp.requests.map((request) => request.body)).toString("latin1");
    expect(exported).not.toContain(KEY);
    expect(exported).not.toContain("secret prompt text");
    expect(exported).not.toContain("traced-output");
    expect(exported).not.toContain("echo traced-output");
  });

  it("a client's unsampled traceparent: the turn and its parts are not traced", async () => {
    const otlp = await receiver();
    const host = await tracedHost(otlp, []);
    const { sessionId } = await host.client.newSession(tempDir());
    const client = traceparent();
    await host.client.prompt(sessionId, "not sampled", { meta: { traceparent: client.header.replace(/01$/, "00") } });
    await host.client.prompt(sessionId, "sampled");
    await otlp.waitFor((span) => span.name === "invoke_agent acp-session-host");
    await otlp.waitFor((span) => span.name === "chat scripted");
    // The sampled turn's two spans came in one export after the unsampled turn ended: nothing of it came at all.
    expect(otlp.spans.some((span) => span.traceId === client.traceId)).toBe(false);
    expect(otlp.spans.filter((span) => span.name === "invoke_agent acp-session-host")).toHaveLength(1);
  });

  it("a failed turn: its span's error.type is the answer's reason, and nothing of the provider's message", async () => {
    const otlp = await receiver();
    const server = await modelServer();
    const host = await tracedHost(otlp, server.hostArgs());
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue({ fail: { status: 401, message: `Incorrect API key provided: ${KEY}` } });
    await expect(host.client.prompt(sessionId, "refused")).rejects.toMatchObject({
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
    });
    const turn = await otlp.waitFor((span) => span.name === "invoke_agent acp-session-host");
    expect(turn.attributes["error.type"]).toBe("MODEL_FAILED");
    expect(turn.status).toEqual({ code: 2, message: "MODEL_FAILED (-32603)" });
    const chat = await otlp.waitFor((span) => span.name === "chat m");
    expect(chat.attributes["error.type"]).toBe("401");
    const exported = Buffer.concat(otlp.requests.map((request) => request.body)).toString("latin1");
    expect(exported).not.toContain(KEY);
  });

  it("a hibernation and the restore from the log that follows are spans of their own", async () => {
    const otlp = await receiver();
    const host = await tracedHost(otlp, ["--hibernate-after-ms", "100"]);
    const { sessionId } = await host.client.newSession(tempDir());
    await host.client.prompt(sessionId, "before");
    const hibernated = await otlp.waitFor((span) => span.name === "hibernate_session");
    expect(hibernated.attributes["gen_ai.conversation.id"]).toBe(sessionId);
    expect(String(hibernated.attributes["acp_host.hibernate.reason"])).toMatch(/idle for --hibernate-after-ms 100/);
    await host.client.prompt(sessionId, "after");
    const restored = await otlp.waitFor((span) => span.name === "restore_session");
    expect(restored.attributes).toMatchObject({ "gen_ai.conversation.id": sessionId, "acp_host.restore.turns": 1 });
    expect(restored.endNs).toBeGreaterThan(restored.startNs);
  });

  it("--trace-content: the prompt, the model's answer and the tool's arguments and result are in the spans", async () => {
    const otlp = await receiver();
    const server = await modelServer();
    const host = await tracedHost(otlp, ["--trace-content", ...server.hostArgs()]);
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue(
      { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: "echo content-out" } }] },
      { text: "the answer" },
    );
    await host.client.prompt(sessionId, "the prompt");
    const turn = await otlp.waitFor((span) => span.name === "invoke_agent acp-session-host");
    expect(String(turn.attributes["gen_ai.input.messages"])).toContain("the prompt");
    const tool = await otlp.waitFor((span) => span.name === "execute_tool bash");
    expect(JSON.parse(String(tool.attributes["gen_ai.tool.call.arguments"]))).toEqual({ command: "echo content-out" });
    expect(String(tool.attributes["gen_ai.tool.call.result"])).toContain("content-out");
    const chat = await otlp.waitFor(
      (span) => span.name === "chat m" && String(span.attributes["gen_ai.output.messages"]).includes("the answer"),
    );
    expect(chat.parentSpanId).toBe(turn.spanId);
    const exported = Buffer.concat(otlp.requests.map((request) => request.body)).toString("latin1");
    expect(exported).not.toContain(KEY);
  });

  it("a receiver that is slow, then failing: every turn is answered, spans are dropped and failed exports counted", async () => {
    const otlp = await receiver();
    otlp.mode = { kind: "slow", ms: 5_000 };
    const host = await tracedHost(otlp, ["--metrics-listen", "127.0.0.1:0"], {
      OTEL_BSP_MAX_QUEUE_SIZE: "8",
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "4",
      OTEL_EXPORTER_OTLP_TIMEOUT: "1000",
    });
    const url = await waitFor("the metrics URL", () => /"url":"(http:[^"]+\/metrics)"/.exec(host.stderr())?.[1]);
    const gauge = async (name: string) => {
      const families = parsePrometheusTextFormat(await (await fetch(url)).text()) as Array<{
        name: string;
        metrics: Array<{ value?: string }>;
      }>;
      return Number(families.find((family) => family.name === name)?.metrics[0]?.value);
    };
    const { sessionId } = await host.client.newSession(tempDir());
    // Two spans a turn (the turn, its model call) against a bound of eight, the exporter stuck on its first batch.
    for (let i = 0; i < 20; i++) expect((await host.client.prompt(sessionId, `slow ${i}`)).stopReason).toBe("end_turn");
    expect(await gauge("acp_session_host_trace_spans_dropped")).toBeGreaterThan(0);
    otlp.mode = { kind: "status", status: 500 };
    for (let i = 0; i < 5; i++)
      expect((await host.client.prompt(sessionId, `failing ${i}`)).stopReason).toBe("end_turn");
    await waitFor("failed exports counted", async () =>
      (await gauge("acp_session_host_trace_spans_export_failed")) > 0 ? true : undefined,
    );
    await waitFor("the export failure logged", () =>
      host.stderr().includes("trace export failed") ? true : undefined,
    );
  });
});
