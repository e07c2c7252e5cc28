// After a cancelled turn the session takes the next prompt at once: cancel before the model's first byte, mid-stream,
// while a tool call runs, during a retry's wait and during a permission request, on both models.
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { bash, script, tool } from "../support/tools.js";

/** Holds every permission request open until the test ends: only a cancel can settle it. */
const heldOpen: Array<(response: RequestPermissionResponse) => void> = [];
/** Told of the next permission request the client receives. */
let asked: ((request: RequestPermissionRequest) => void) | null = null;
const holdPermission = (request: RequestPermissionRequest) =>
  new Promise<RequestPermissionResponse>((resolve) => {
    heldOpen.push(resolve);
    asked?.(request);
  });
/** Resolves when the client receives its next permission request (call before the prompt that asks it). */
const nextPermission = () =>
  new Promise<RequestPermissionRequest>((resolve) => {
    asked = (request) => {
      asked = null;
      resolve(request);
    };
  });

/** Sends a prompt; resolves `reached` on the first update that satisfies `when`. */
function promptUntil(host: TestHost, sessionId: string, text: string, when: (update: SessionUpdate) => boolean) {
  let reach: () => void = () => {};
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const turn = host.client.prompt(sessionId, text, { onUpdate: (update) => void (when(update) && reach()) });
  return { turn, reached };
}

const toolRunning = (update: SessionUpdate) =>
  update.sessionUpdate === "tool_call_update" && update.status === "in_progress";

/** Cancels, checks the turn ended cancelled, then that the session answers the next prompt. */
async function cancelThenNext(
  host: TestHost,
  sessionId: string,
  turn: Promise<{ stopReason: string }>,
  next: () => Promise<{ stopReason: string; text: string }>,
  expected: string,
) {
  await host.client.cancel(sessionId);
  expect((await turn).stopReason).toBe("cancelled");
  const answer = await next();
  expect(answer.stopReason).toBe("end_turn");
  expect(answer.text).toBe(expected);
}

describe("openai-compatible: cancel, then the next prompt", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    // A long grace: the turn must end by cooperation, not by losing its worker.
    host = await startHost([...server.hostArgs(), "--cancel-grace-ms", "60000"], holdPermission);
  });
  afterAll(async () => {
    for (const release of heldOpen.splice(0)) release({ outcome: { outcome: "cancelled" } });
    await host?.dispose();
    await server?.close();
  });

  const newSession = async (mode?: "auto") => (await host.client.newSession(tempDir(), mode ? { mode } : {})).sessionId;
  const next = (sessionId: string) => () => {
    server.enqueue({ text: "next answer" });
    return host.client.prompt(sessionId, "next");
  };

  it("(a) before the server sends its first byte", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({ headersMs: 30_000, text: "never" });
    const turn = host.client.prompt(sessionId, "slow to answer");
    await server.waitForRequests(before + 1);
    await cancelThenNext(host, sessionId, turn, next(sessionId), "next answer");
    expect(await server.requests[before]!.ended).toBe("client-closed");
  });

  it("(b) mid-stream, a chunk every 100 ms", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({ text: "slow ".repeat(200), tokensPerSecond: 10, chunkChars: 5 });
    const turn = host.client.prompt(sessionId, "stream slowly");
    await server.waitForRequests(before + 1);
    // The host has read some of the answer: the stream is under way.
    await server.requests[before]!.chunksWritten(3);
    await cancelThenNext(host, sessionId, turn, next(sessionId), "next answer");
    expect(await server.requests[before]!.ended).toBe("client-closed");
  });

  it("(c) while a tool call of the turn runs", async () => {
    const sessionId = await newSession("auto");
    server.enqueue({ toolCalls: [{ name: "bash", arguments: { command: "sleep 30" } }] });
    const { turn, reached } = promptUntil(host, sessionId, "run something long", toolRunning);
    await reached;
    await cancelThenNext(host, sessionId, turn, next(sessionId), "next answer");
  });

  it("(d) during a retry's backoff", async () => {
    const sessionId = await newSession();
    const before = server.requests.length;
    server.enqueue({ fail: { status: 503, message: "overloaded", retryAfterMs: 60_000 } });
    const turn = host.client.prompt(sessionId, "try later");
    await server.waitForRequests(before + 1);
    expect(await server.requests[before]!.ended).toBe("completed");
    await cancelThenNext(host, sessionId, turn, next(sessionId), "next answer");
    expect(server.requests.length - before).toBe(2);
  });

  it("(e) during a permission request", async () => {
    const sessionId = await newSession();
    server.enqueue({ toolCalls: [{ name: "write_file", arguments: { path: "a.txt", content: "x" } }] });
    const permission = nextPermission();
    const turn = host.client.prompt(sessionId, "write a file");
    expect((await permission).sessionId).toBe(sessionId);
    await cancelThenNext(host, sessionId, turn, next(sessionId), "next answer");
  });
});

describe("scripted: cancel, then the next prompt", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--cancel-grace-ms", "60000"], holdPermission);
  });
  afterAll(async () => {
    for (const release of heldOpen.splice(0)) release({ outcome: { outcome: "cancelled" } });
    await host?.dispose();
  });

  const next = (sessionId: string) => () => host.client.prompt(sessionId, "next");

  it("while the model sleeps, after it said something", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const { turn, reached } = promptUntil(
      host,
      sessionId,
      script({ say: "thinking" }, { sleep_ms: 30_000 }),
      (update) => update.sessionUpdate === "agent_message_chunk",
    );
    await reached;
    await cancelThenNext(host, sessionId, turn, next(sessionId), "You said: next");
  });

  it("while a tool call runs", async () => {
    const { sessionId } = await host.client.newSession(tempDir(), { mode: "auto" });
    const { turn, reached } = promptUntil(
      host,
      sessionId,
      script(bash("sleep 30"), { say: "not reached" }),
      toolRunning,
    );
    await reached;
    await cancelThenNext(host, sessionId, turn, next(sessionId), "You said: next");
  });

  it("during a permission request", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const permission = nextPermission();
    const turn = host.client.prompt(sessionId, script(tool("write_file", { path: "a.txt", content: "x" })));
    expect((await permission).sessionId).toBe(sessionId);
    await cancelThenNext(host, sessionId, turn, next(sessionId), "You said: next");
  });
});
