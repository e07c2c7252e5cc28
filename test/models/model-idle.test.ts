// --model-idle-timeout-ms: a model stream that goes quiet (before its headers or mid-stream) is aborted and counts
// as a retryable failure; after the retries the turn fails with an error naming the timeout, and the session goes on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

describe("a model stream that goes quiet", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    // The stalls below last 30 s; the timeout is far above the pauses a loaded machine puts into a stream that flows.
    host = await startHost([...server.hostArgs(), "--model-idle-timeout-ms", "2000", "--model-retries", "1"]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("is retried, and the retry's answer is the turn's", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const before = server.requests.length;
    server.enqueue({ text: "stalls after its headers", firstTokenMs: 30_000 }, { text: "recovered" });
    const result = await host.client.prompt(sessionId, "hello");
    expect(result.text).toBe("recovered");
    expect(server.requests.length - before).toBe(2);
    expect(await server.requests[before]!.ended).toBe("client-closed");
  });

  it("fails the turn after the retries with an error naming the timeout; the next prompt works", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const before = server.requests.length;
    server.enqueue({ text: "no headers", headersMs: 30_000 }, { text: "silent mid-stream", firstTokenMs: 30_000 });
    await expect(host.client.prompt(sessionId, "hello")).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      message: expect.stringMatching(/no bytes from the model for 2000 ms \(--model-idle-timeout-ms\).*2 attempts/),
    });
    expect(await server.requests[before]!.ended).toBe("client-closed");
    expect(await server.requests[before + 1]!.ended).toBe("client-closed");
    server.enqueue({ text: "fine" });
    expect((await host.client.prompt(sessionId, "again")).text).toBe("fine");
  });
});
