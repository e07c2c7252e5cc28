// --stream-chunks: message and thought text go out as they arrive, the log still holds whole committed messages
// (so session/load replays them whole), and a cancel mid-stream leaves the partial text already sent and nothing more.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

const texts = (updates: readonly SessionUpdate[], kind: "agent_message_chunk" | "agent_thought_chunk") =>
  updates.flatMap((u) => (u.sessionUpdate === kind && u.content.type === "text" ? [u.content.text] : []));

describe("--stream-chunks", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  const stateDir = tempDir();

  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    host = await startHost([
      "--state-dir",
      stateDir,
      "--stream-chunks",
      ...server.hostArgs(),
      "--cancel-grace-ms",
      "60000",
    ]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("shows deltas as they arrive and journals the whole message; session/load replays it whole", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const reasoning = "First, consider the question. Then answer it.";
    const text = "Here is a streamed answer, in small pieces.";
    server.enqueue({ reasoning, text, chunkChars: 5 });
    const result = await host.client.prompt(sessionId, "stream please");
    expect(result.stopReason).toBe("end_turn");
    const thoughts = texts(result.updates, "agent_thought_chunk");
    const messages = texts(result.updates, "agent_message_chunk");
    expect(thoughts.length).toBe(Math.ceil(reasoning.length / 5));
    expect(thoughts.join("")).toBe(reasoning);
    expect(messages.length).toBe(Math.ceil(text.length / 5));
    expect(messages.join("")).toBe(text);
    // Every thought delta came before the first message delta.
    const kinds = result.updates.map((u) => u.sessionUpdate);
    expect(kinds.lastIndexOf("agent_thought_chunk")).toBeLessThan(kinds.indexOf("agent_message_chunk"));

    expect(logEntries(stateDir, sessionId).filter((entry) => entry.type === "assistant_message")).toEqual([
      { type: "assistant_message", turnId: expect.any(String), blocks: [text], toolCalls: [], thought: reasoning },
    ]);
    expect(transcript(await host.client.load(sessionId, cwd))).toEqual([
      "user: stream please",
      `thought: ${reasoning}`,
      `agent: ${text}`,
    ]);
  });

  it("a cancel mid-stream leaves the partial text already sent, sends nothing more, and journals no message", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const full = "0123456789".repeat(40);
    // 100 chunks at 20 a second: five seconds unless cancelled.
    server.enqueue({ text: full, chunkChars: 4, tokensPerSecond: 20 });
    const seen: SessionUpdate[] = [];
    const off = host.client.onSessionUpdate(sessionId, (update) => seen.push(update));
    let cancelled = false;
    const turn = host.client.prompt(sessionId, "long answer", {
      onUpdate: () => {
        if (!cancelled && texts(seen, "agent_message_chunk").length >= 3) {
          cancelled = true;
          void host.client.cancel(sessionId);
        }
      },
    });
    const result = await turn;
    expect(result.stopReason).toBe("cancelled");
    expect(result.text.length).toBeGreaterThanOrEqual(12);
    expect(result.text.length).toBeLessThan(full.length);
    expect(full.startsWith(result.text)).toBe(true);
    // Nothing arrives after the turn ended: the next prompt's updates are its own.
    const shownAtEnd = seen.length;
    server.enqueue({ text: "next" });
    const next = await host.client.prompt(sessionId, "again");
    expect(next.text).toBe("next");
    expect(seen.slice(shownAtEnd)).toEqual(next.updates);
    off();
    expect(
      logEntries(stateDir, sessionId)
        .filter((entry) => entry.type === "assistant_message")
        .map((entry) => entry.type === "assistant_message" && entry.blocks),
    ).toEqual([["next"]]);
  });

  it("a response retried after a dropped connection shows its text once", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const text = "This answer is interrupted once and then sent again in full.";
    // The first attempt streams its role chunk and two text chunks ("This ", "answe"), then the connection drops.
    server.enqueue({ text, chunkChars: 5, fail: { dropAfterChunks: 3 } }, { text, chunkChars: 5 });
    const result = await host.client.prompt(sessionId, "flaky stream");
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe(text);
    expect(texts(result.updates, "agent_message_chunk").slice(0, 3)).toEqual(["This ", "answe", "r is "]);
  });

  it("a model that does not stream (scripted) still shows its message once, at commit", async () => {
    const scripted = await startHost(["--stream-chunks"]);
    try {
      const { sessionId } = await scripted.client.newSession(tempDir());
      const result = await scripted.client.prompt(sessionId, "hello");
      expect(texts(result.updates, "agent_message_chunk")).toEqual(["You said: hello"]);
    } finally {
      await scripted.dispose();
    }
  });
});
