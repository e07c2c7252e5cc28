import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRawHost, type RawHost } from "../support/raw-host.js";
import { tempDir } from "../support/host.js";

const byId = (id: number) => (m: Record<string, unknown>) => m.id === id;

describe("bad input never kills the host", () => {
  let host: RawHost;
  let cwd: string;
  beforeAll(async () => {
    host = await startRawHost();
    cwd = tempDir();
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } }));
    await host.next(byId(1));
  });
  afterAll(async () => {
    await host.close();
  });

  it("answers malformed JSON with -32700 and id null", async () => {
    host.send("{not json");
    expect(await host.next((m) => m.id === null)).toMatchObject({ error: { code: -32700 } });
  });

  it.each(["42", "null", "[]", "{}", '"text"', "true"])("survives a bare %s on a line", async (line) => {
    host.send(line);
    expect(await host.next((m) => m.id === null)).toMatchObject({ error: { code: -32600 } });
  });

  it("answers a request nested too deeply to echo with -32600 and keeps its connection (found by the wire fuzz)", async () => {
    const deep = `${'{"d":['.repeat(30_000)}${"]}".repeat(30_000)}`;
    host.send(`{"jsonrpc":"2.0","id":7,"method":${deep},"params":{}}`);
    expect(
      await host.next((m) => m.id === null && (m.error as { code?: number } | undefined)?.code === -32600),
    ).toMatchObject({ error: { code: -32600 } });
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 8, method: "no/such_method", params: {} }));
    expect(await host.next(byId(8))).toMatchObject({ error: { code: -32601 } });
    expect(host.child.exitCode).toBeNull();
  });

  it("answers an unknown method with -32601", async () => {
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "no/such_method", params: {} }));
    expect(await host.next(byId(2))).toMatchObject({ error: { code: -32601 } });
  });

  it("answers invalid params with -32602 naming the field", async () => {
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "session/new", params: { cwd } }));
    const reply = (await host.next(byId(3))) as { error: { code: number; data: unknown } };
    expect(reply.error.code).toBe(-32602);
    expect(JSON.stringify(reply.error.data)).toContain("mcpServers");
  });

  it("answers an unknown session with -32602 unknown session", async () => {
    host.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 4,
        method: "session/prompt",
        params: { sessionId: "nope", prompt: [{ type: "text", text: "hi" }] },
      }),
    );
    expect(await host.next(byId(4))).toMatchObject({
      error: { code: -32602, data: expect.objectContaining({ reason: "UNKNOWN_SESSION" }) },
    });
  });

  it("keeps serving after all of it: a session still answers", async () => {
    host.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "session/new", params: { cwd, mcpServers: [] } }));
    const created = (await host.next(byId(5))) as { result: { sessionId: string } };
    host.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 6,
        method: "session/prompt",
        params: { sessionId: created.result.sessionId, prompt: [{ type: "text", text: "ok?" }] },
      }),
    );
    const update = await host.next(
      (m) =>
        m.method === "session/update" &&
        (m.params as { update: { sessionUpdate: string } }).update.sessionUpdate === "agent_message_chunk",
    );
    expect(update).toMatchObject({
      params: {
        sessionId: created.result.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { text: "You said: ok?" } },
      },
    });
    expect(await host.next(byId(6))).toMatchObject({ result: { stopReason: "end_turn" } });
    expect(host.child.exitCode).toBeNull();
  });

  it("writes nothing but JSON-RPC frames on stdout", () => {
    for (const line of host.lines) expect(JSON.parse(line)).toHaveProperty("jsonrpc", "2.0");
  });
});
