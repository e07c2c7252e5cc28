// The scripted model commits what it said when a step that takes time follows: the client sees it (and the log
// has it) while that step still runs; consecutive `say`s stay one message.
import { once } from "node:events";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, describe, expect, it } from "vitest";
import { transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { script } from "../support/tools.js";

const hosts: TestHost[] = [];
async function host(...args: string[]): Promise<TestHost> {
  const started = await startHost(args);
  hosts.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.dispose()));
});

const chunkText = (update: SessionUpdate) =>
  update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? update.content.text : null;

describe("scripted model: say, then a step that takes time", () => {
  it("the message arrives while the sleep still runs (a cancel then ends the turn)", async () => {
    const h = await host();
    const { sessionId } = await h.client.newSession(tempDir());
    const chunks: string[] = [];
    let saw: () => void = () => {};
    const seen = new Promise<void>((resolve) => (saw = resolve));
    const turn = h.client.prompt(
      sessionId,
      script({ say: "a" }, { say: "b" }, { sleep_ms: 60_000 }, { say: "later" }),
      {
        onUpdate: (update) => {
          const text = chunkText(update);
          if (text !== null) chunks.push(text);
          if (chunks.length === 2) saw();
        },
      },
    );
    // Only a message sent before the sleep ends can arrive here: the sleep outlasts the test's timeout.
    await seen;
    await h.client.cancel(sessionId);
    const result = await turn;
    expect(result.stopReason).toBe("cancelled");
    // "a" and "b" are one message of two blocks, out before the sleep; "later" never came.
    expect(chunks).toEqual(["a", "b"]);
    expect(result.text).toBe("ab");
  });

  it("consecutive says stay one message; a say after the sleep is the next one", async () => {
    const h = await host();
    const cwd = tempDir();
    const { sessionId } = await h.client.newSession(cwd);
    const result = await h.client.prompt(
      sessionId,
      script({ say: "a" }, { say: "b" }, { sleep_ms: 10 }, { say: "later" }),
    );
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("ab\n\nlater");
    const replay = transcript(await h.client.load(sessionId, cwd));
    expect(replay.filter((line) => line.startsWith("agent: "))).toEqual(["agent: a", "agent: b", "agent: later"]);
  });

  it("what the client saw before the sleep survives a SIGKILL of the host", async () => {
    const state = tempDir("ash-state-");
    const cwd = tempDir();
    const first = await host("--state-dir", state);
    const { sessionId } = await first.client.newSession(cwd);
    let saw: () => void = () => {};
    const seen = new Promise<void>((resolve) => (saw = resolve));
    const open = first.client
      .prompt(sessionId, script({ say: "partial" }, { sleep_ms: 60_000 }, { say: "never" }), {
        onUpdate: (u) => void (chunkText(u) === "partial" && saw()),
      })
      .catch((error: unknown) => error);
    await seen;
    const exited = once(first.child, "exit");
    process.kill(first.pid, "SIGKILL");
    await exited;
    await open;
    const second = await host("--state-dir", state);
    const replay = transcript(await second.client.load(sessionId, cwd));
    expect(replay).toContain("agent: partial");
    expect(replay).not.toContain("agent: never");
  });
});
