// The model gateway: one thread per host makes every session's OpenAI-compatible requests, so its connections to the
// server are kept alive across sessions, and no session worker ever holds the API key or the HTTP client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

describe("model gateway", () => {
  let server: OpenAiTestServer;
  let host: TestHost;

  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    host = await startHost([...server.hostArgs("test-model")]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("requests of different sessions, one after another, go over the same kept-alive connection", async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) ids.push((await host.client.newSession(tempDir())).sessionId);
    const before = server.requests.length;
    for (const [index, id] of ids.entries())
      expect((await host.client.prompt(id, `hello ${index}`)).text).toBe(`[test-model] you said: hello ${index}`);
    const connections = new Set(server.requests.slice(before).map((request) => request.connection));
    // Six sessions, six workers: one client in the host, so fewer connections than sessions (one, unless the
    // machine was slow enough for a kept-alive connection to time out between two prompts).
    expect(connections.size).toBeLessThan(ids.length);
  });
});
