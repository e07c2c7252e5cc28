import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { startHost, tempDir, type TestHost } from "../support/host.js";

describe("concurrent sessions are isolated", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--allow-fault-injection", "--cancel-grace-ms", "500"]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("20 sessions prompting at once: no update or answer crosses sessions", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => host.client.newSession(tempDir())));
    const ids = sessions.map((s) => s.sessionId);
    expect(new Set(ids).size).toBe(20);
    const seen: SessionNotification[] = [];
    const off = host.client.onAnyUpdate((n) => seen.push(n));
    const results = await Promise.all(
      ids.map((id, i) =>
        host.client.prompt(
          id,
          `/script [{"say":"tag-${i}-a"},{"sleep_ms":${(i * 7) % 30}},{"tool":"no_such_tool","input":{"n":${i}}},{"say":"tag-${i}-b"}]`,
        ),
      ),
    );
    off();
    results.forEach((result, i) => {
      expect(result.stopReason).toBe("end_turn");
      expect(result.text).toBe(`tag-${i}-a\n\ntag-${i}-b`);
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]!.status).toBe("failed");
    });
    for (const notification of seen) {
      const i = ids.indexOf(notification.sessionId);
      expect(i).toBeGreaterThanOrEqual(0);
      const update = notification.update;
      if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text")
        expect(update.content.text).toMatch(new RegExp(`^tag-${i}-`));
      if (update.sessionUpdate === "tool_call") expect(update.rawInput).toEqual({ n: i });
    }
    expect(seen.filter((n) => n.update.sessionUpdate === "agent_message_chunk")).toHaveLength(40);
  });

  it("one agent_message_chunk per non-empty block of a committed message", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const result = await host.client.prompt(sessionId, `/script [{"say":"one"},{"say":""},{"say":"two"}]`);
    // After the title the session's first prompt gives it.
    expect(result.updates.map((u) => u.sessionUpdate)).toEqual([
      "session_info_update",
      "agent_message_chunk",
      "agent_message_chunk",
    ]);
    expect(result.text).toBe("onetwo");
  });

  it("a plain prompt is echoed; text blocks are joined and a resource_link is spelled out", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const result = await host.client.prompt(sessionId, [
      { type: "text", text: "look at " },
      { type: "resource_link", name: "notes.md", uri: "file:///tmp/notes.md" },
    ]);
    expect(result.text).toBe("You said: look at [resource_link name=notes.md uri=file:///tmp/notes.md]");
  });

  it("cancel in one session leaves the others' turns untouched", async () => {
    const ids = (await Promise.all([0, 1, 2].map(() => host.client.newSession(tempDir())))).map((s) => s.sessionId);
    // The cancelled one would sleep a minute: it is cancelled once it has said it started, whatever the machine's pace.
    let started: () => void = () => {};
    const startedOne = new Promise<void>((resolve) => (started = resolve));
    const turns = ids.map((id, i) =>
      host.client.prompt(
        id,
        `/script [{"say":"start-${i}"},{"sleep_ms":${i === 1 ? 60_000 : 400}},{"say":"end-${i}"}]`,
        {
          onUpdate: (update) => void (i === 1 && update.sessionUpdate === "agent_message_chunk" && started()),
        },
      ),
    );
    await startedOne;
    await host.client.cancel(ids[1]!);
    const [a, b, c] = await Promise.all(turns);
    expect(b!.stopReason).toBe("cancelled");
    expect(b!.text).not.toContain("end-1");
    expect(a).toMatchObject({ stopReason: "end_turn", text: "start-0\n\nend-0" });
    expect(c).toMatchObject({ stopReason: "end_turn", text: "start-2\n\nend-2" });
    // the cancelled session takes the next prompt
    expect((await host.client.prompt(ids[1]!, "after")).text).toBe("You said: after");
  });

  it("cancel of an unknown session is a no-op", async () => {
    await host.client.cancel("00000000-0000-4000-8000-000000000000");
    const { sessionId } = await host.client.newSession(tempDir());
    expect((await host.client.prompt(sessionId, "still here")).stopReason).toBe("end_turn");
  });

  it("a second prompt while one is in flight gets an error; the first goes on", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    // Sent after the first on the same connection, so the host has the first in flight; it lasts until cancelled.
    let said: () => void = () => {};
    const saidFirst = new Promise<void>((resolve) => (said = resolve));
    const first = host.client.prompt(sessionId, `/script [{"say":"first"},{"sleep_ms":60000}]`, {
      onUpdate: (update) => void (update.sessionUpdate === "agent_message_chunk" && said()),
    });
    await expect(host.client.prompt(sessionId, "second")).rejects.toMatchObject({
      code: -32600,
      data: expect.objectContaining({ reason: "PROMPT_IN_FLIGHT" }),
    });
    // Cancelled once the turn has said its first word: a cancel that comes while the session's worker is still
    // starting ends the turn before it says anything.
    await saidFirst;
    await host.client.cancel(sessionId);
    expect(await first).toMatchObject({ stopReason: "cancelled", text: "first" });
    expect((await host.client.prompt(sessionId, "third")).text).toBe("You said: third");
  });
});
