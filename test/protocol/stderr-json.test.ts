// Every line the host writes to stderr is its own JSON, whatever a client sends: the SDK's console lines for
// client-caused errors (a malformed notification, a response to no request, a reader that stalls) go through the
// host's logger, one line per connection and kind, then a count, over stdio and over --listen (WebSocket and
// Streamable HTTP).
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { OpenAiTestServer } from "../support/openai-server.js";
import { startRawHost } from "../support/raw-host.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, transports } from "../support/remote-host.js";
import { openStalledClient } from "../support/stalled-client.js";
import { waitFor, fileSaidTimes } from "../support/tools.js";

const FLOOD = 1000;

/** A session/cancel whose params break its schema: the SDK answers nothing (a notification) and used to print it. */
const malformed = (i: number) => ({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: i } });
/** A response to a request the host never sent. */
const stray = (i: number) => ({ jsonrpc: "2.0", id: 1_000_000 + i, result: {} });

const INITIALIZE = { jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } } as const;
/** Answered after every message sent before it has been handled. */
const SYNC = { jsonrpc: "2.0", id: "sync", method: "session/list", params: {} } as const;

interface Line {
  msg?: string;
  detail?: string;
  connection?: string;
  repeats?: number;
}

/** Every stderr line parsed; one that is not a JSON object fails the test with the line in the message. */
function jsonLines(stderr: string): Line[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch {
        throw new Error(`a stderr line that is not JSON: ${line}`);
      }
      expect(parsed, line).toBeTypeOf("object");
      return parsed as Line;
    });
}

/** The SDK's lines among them: per kind, how many lines and how many occurrences they account for. */
function sdkLines(lines: Line[]): Map<string, { lines: number; occurrences: number }> {
  const kinds = new Map<string, { lines: number; occurrences: number }>();
  for (const line of lines) {
    if (!line.msg?.startsWith("ACP SDK: ")) continue;
    const kind = line.msg.replace(/^ACP SDK: /, "").replace(/ \(repeated\)$/, "");
    const seen = kinds.get(kind) ?? { lines: 0, occurrences: 0 };
    seen.lines++;
    seen.occurrences += line.repeats ?? 1;
    kinds.set(kind, seen);
  }
  return kinds;
}

/** One WebSocket's exchange: initialize, the flood, then a request answered once the flood has been handled. */
async function overWebSocket(url: string, flood: object[]): Promise<void> {
  const socket = new WebSocket(url);
  const answers = new Map<unknown, () => void>();
  socket.on("message", (data: Buffer) => {
    const message = JSON.parse(data.toString()) as { id?: unknown; method?: unknown };
    if (message.method === undefined) answers.get(message.id)?.();
  });
  const answered = (id: unknown) => new Promise<void>((resolve) => answers.set(id, resolve));
  await once(socket, "open");
  const initialized = answered(0);
  socket.send(JSON.stringify(INITIALIZE));
  await initialized;
  for (const message of flood) socket.send(JSON.stringify(message));
  const synced = answered("sync");
  socket.send(JSON.stringify(SYNC));
  await synced;
  socket.close();
}

/** The same over Streamable HTTP: one POST a message, on the connection initialize opened. */
async function overHttp(url: string, flood: object[]): Promise<void> {
  const post = (message: object, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify(message),
    });
  const opened = await post(INITIALIZE);
  expect(opened.status).toBe(200);
  await opened.text();
  const connection = { "acp-connection-id": opened.headers.get("acp-connection-id")! };
  for (const message of flood) {
    // A session/cancel is routed by its session's header; the malformed one names no session in its params.
    const response = await post(message, "method" in message ? { ...connection, "acp-session-id": "s" } : connection);
    expect(response.status).toBe(202);
    await response.text();
  }
  // Answers come on the connection's event stream.
  const events = await fetch(url, { headers: { accept: "text/event-stream", ...connection } });
  const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader();
  expect((await post(SYNC, connection)).status).toBe(202);
  for (let text = ""; !/^data: .*"id":"sync"/m.test(text);) {
    const next = await reader.read();
    if (next.done) throw new Error(`the event stream ended before the answer to sync: ${text}`);
    text += next.value;
  }
  await reader.cancel();
}

describe("stderr is the host's JSON", () => {
  it("over stdio: 1,000 malformed notifications and 1,000 stray responses make a few JSON lines", async () => {
    const host = await startRawHost(["--log-level", "info"]);
    host.send(JSON.stringify(INITIALIZE));
    await host.next((message) => message.id === 0);
    for (let i = 0; i < FLOOD; i++) host.send(JSON.stringify(malformed(i)));
    for (let i = 0; i < FLOOD; i++) host.send(JSON.stringify(stray(i)));
    host.send(JSON.stringify(SYNC));
    expect(await host.next((message) => message.id === "sync")).toHaveProperty("result");
    expect(await host.close()).toBe(0);
    const lines = jsonLines(host.stderr());
    const kinds = sdkLines(lines);
    // Each kind: its first line, then its count (said at the latest when the host exits).
    expect(kinds.get("Error handling notification")).toEqual({ lines: 2, occurrences: FLOOD });
    expect(kinds.get("Got response to unknown request")).toEqual({ lines: 2, occurrences: FLOOD });
    expect(lines.filter((line) => line.msg?.startsWith("ACP SDK: ")).every((line) => line.connection === "stdio")).toBe(
      true,
    );
    expect(lines.length).toBeLessThan(50);
  });

  it.each(transports)("over --listen ($name): the flood makes a few JSON lines", async ({ name }) => {
    const host = await startRemoteHost(["--log-level", "info"]);
    try {
      const flood = [...Array.from({ length: FLOOD }, (_, i) => malformed(i)), ...Array.from({ length: FLOOD }, stray)];
      if (name === "WebSocket") await overWebSocket(host.wsUrl, flood);
      else await overHttp(host.httpUrl, flood);
    } finally {
      expect(await host.stop()).toBe(0);
    }
    const lines = jsonLines(host.stderr());
    const kinds = sdkLines(lines);
    expect(kinds.get("Error handling notification")).toEqual({ lines: 2, occurrences: FLOOD });
    expect(lines.filter((line) => line.msg?.startsWith("ACP SDK: ")).every((line) => line.connection === "c1")).toBe(
      true,
    );
    // The listener drops responses to no request itself, before the SDK sees them (its own warning, counted).
    const strays = lines.filter((line) => line.msg?.startsWith("response to no request"));
    expect(strays.reduce((sum, line) => sum + (line.repeats ?? 1), 0)).toBe(FLOOD);
    expect(lines.length).toBeLessThan(50);
  });

  it("over --listen: a reader that stalls is closed with a JSON line naming its connection", async () => {
    const stallMs = 300;
    const host = await startRemoteHost([
      "--log-level",
      "info",
      ...["--max-buffered-bytes", String(256 * 1024), "--max-message-bytes", String(64 * 1024)],
      ...["--max-output-stall-ms", String(stallMs)],
      ...["--default-mode", "auto"],
    ]);
    try {
      const cwd = tempDir();
      writeFileSync(join(cwd, "big.txt"), "x".repeat(256 * 1024));
      const slow = await openStalledClient(host.wsUrl);
      await slow.call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = (await slow.call(1, "session/new", { cwd, mcpServers: [] })) as { sessionId: string };
      slow.stopReading();
      // Megabytes of answer for a client that reads none of it: more than the socket buffers and the host's bound.
      slow.sendPrompt(2, sessionId, fileSaidTimes("big.txt", 16));
      await waitFor("the stalled connection closed", () =>
        /"connection":"c1","tenant":null,"detached":1,"msg":"connection closed"/.test(host.stderr()),
      );
    } finally {
      expect(await host.stop()).toBe(0);
    }
    const lines = jsonLines(host.stderr());
    const stalled = lines.filter((line) => line.msg === "ACP SDK: Closing ACP connection");
    expect(stalled).toEqual([
      expect.objectContaining({
        connection: "c1",
        detail: expect.stringContaining(`output stalled for maxOutputStallMs (${stallMs})`),
      }),
    ]);
  });

  it("a model server's chunk that is not JSON: what the model thread's client says of it is the host's JSON too", async () => {
    const server = await OpenAiTestServer.start();
    const host = await startRawHost(["--log-level", "info", ...server.hostArgs(), "--model-retries", "0"]);
    try {
      server.enqueue({ text: "never read", malformedChunk: "{this is not json" });
      host.send(JSON.stringify(INITIALIZE));
      await host.next((message) => message.id === 0);
      host.send(
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: tempDir(), mcpServers: [] } }),
      );
      const created = (await host.next((message) => message.id === 1)) as { result: { sessionId: string } };
      host.send(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "session/prompt",
          params: { sessionId: created.result.sessionId, prompt: [{ type: "text", text: "hi" }] },
        }),
      );
      await host.next((message) => message.id === 2);
    } finally {
      expect(await host.close()).toBe(0);
      await server.close();
    }
    const lines = jsonLines(host.stderr()) as Array<Line & { component?: string }>;
    expect(lines.find((line) => line.msg?.includes("Could not parse message into JSON"))).toMatchObject({
      component: "model-gateway",
    });
  });
});
