import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";

describe("session/new and session/prompt validation", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--max-sessions", "3"]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("initialize advertises protocol 1, text-only prompts and no auth", () => {
    expect(host.client.initializeResponse).toMatchObject({
      protocolVersion: 1,
      agentCapabilities: { promptCapabilities: { image: false, audio: false, embeddedContext: false } },
      authMethods: [],
    });
  });

  it("refuses a relative, missing or non-directory cwd", async () => {
    await expect(host.client.newSession("relative/dir")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
    await expect(host.client.newSession("/no/such/dir/anywhere")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
    const file = join(tempDir(), "file.txt");
    writeFileSync(file, "x");
    await expect(host.client.newSession(file)).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
  });

  it("refuses sse and unknown MCP transports naming the server, bad server names, and additional directories", async () => {
    const cwd = tempDir();
    const refused = (server: Record<string, unknown>) =>
      host.client.request("session/new", { cwd, mcpServers: [server] });
    await expect(
      refused({ type: "sse", name: "old", url: "http://127.0.0.1:1/sse", headers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers", server: "old" }),
    });
    await expect(
      refused({ type: "websocket", name: "sock", url: "ws://127.0.0.1:1/", headers: [] }),
    ).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers", server: "sock" }),
    });
    await expect(refused({ type: "grpc", name: "rpc", command: "/bin/true", args: [], env: [] })).rejects.toMatchObject(
      {
        code: -32602,
        data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers", server: "rpc" }),
      },
    );
    await expect(refused({ type: "http", name: "web", url: "file:///etc/passwd", headers: [] })).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers", server: "web" }),
    });
    await expect(refused({ name: "has space", command: "/bin/true", args: [], env: [] })).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers" }),
    });
    await expect(
      host.client.request("session/new", {
        cwd,
        mcpServers: [
          { name: "twice", command: "/bin/true", args: [], env: [] },
          { name: "twice", command: "/bin/true", args: [], env: [] },
        ],
      }),
    ).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers", server: "twice" }),
    });
    const many = Array.from({ length: 33 }, (_, i) => ({ name: `s${i}`, command: "/bin/true", args: [], env: [] }));
    await expect(host.client.request("session/new", { cwd, mcpServers: many })).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "mcpServers" }),
    });
    await expect(
      host.client.request("session/new", { cwd, mcpServers: [], additionalDirectories: ["/tmp"] }),
    ).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "additionalDirectories" }),
    });
  });

  it("rejects empty prompts and content it did not advertise", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    await expect(host.client.prompt(sessionId, [])).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "prompt" }),
    });
    await expect(host.client.prompt(sessionId, "   \n\t")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "prompt" }),
    });
    await expect(
      host.client.prompt(sessionId, [{ type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }]),
    ).rejects.toMatchObject({ code: -32602, data: expect.objectContaining({ reason: "INVALID_PARAMS" }) });
    await expect(
      host.client.prompt(sessionId, [{ type: "resource", resource: { uri: "file:///x", text: "x" } }]),
    ).rejects.toMatchObject({ code: -32602, data: expect.objectContaining({ reason: "INVALID_PARAMS" }) });
    await expect(host.client.prompt(sessionId, '/script [{"nope":1}]')).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "PROMPT_REJECTED" }),
    });
    expect((await host.client.prompt(sessionId, "fine")).text).toBe("You said: fine");
  });

  it("session ids are distinct UUIDs and capacity is enforced with a clear error", async () => {
    const live = [await host.client.newSession(tempDir())];
    while (true) {
      try {
        live.push(await host.client.newSession(tempDir()));
      } catch (error) {
        expect(error).toMatchObject({
          message: expect.stringContaining("host at capacity: 3 sessions"),
          data: { reason: "AT_CAPACITY" },
        });
        break;
      }
    }
    for (const s of live)
      expect(s.sessionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("session/set_mode switches the mode and announces it; unknown modes are refused", async () => {
    const other = await startHost();
    try {
      const { sessionId, modes } = await other.client.newSession(tempDir());
      expect(modes?.currentModeId).toBe("ask");
      expect(modes?.availableModes.map((m) => m.id)).toEqual(["ask", "auto", "read-only"]);
      const seen: string[] = [];
      other.client.onSessionUpdate(sessionId, (u) => {
        if (u.sessionUpdate === "current_mode_update") seen.push(u.currentModeId);
      });
      await other.client.setMode(sessionId, "auto");
      await expect(other.client.setMode(sessionId, "full-access")).rejects.toMatchObject({
        code: -32602,
        data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "modeId" }),
      });
      await expect(other.client.setMode(sessionId, "bogus")).rejects.toMatchObject({
        code: -32602,
        data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "modeId" }),
      });
      expect(seen).toEqual(["auto"]);
    } finally {
      await other.dispose();
    }
  });
});
