// HostClient beyond permissions: attaching to streams, update hooks, abort signals and the `_host/stats` extension.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { ndJsonStream, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HostClient } from "../../src/client/index.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

describe("HostClient", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost();
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("prompt gathers the turn and calls onUpdate with each update as it arrives", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const seen: SessionUpdate[] = [];
    const result = await host.client.prompt(sessionId, `/script [{"say":"one"},{"say":"two"}]`, {
      onUpdate: (u) => seen.push(u),
    });
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("onetwo");
    expect(result.toolCalls).toEqual([]);
    expect(seen).toEqual(result.updates);
    // A session's first prompt gives it its title first.
    expect(seen.map((u) => u.sessionUpdate)).toEqual([
      "session_info_update",
      "agent_message_chunk",
      "agent_message_chunk",
    ]);
  });

  it("keeps a turn's messages apart by a blank line, and a message's blocks together", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    // A step other than say commits the message before it: two messages, the first of two blocks.
    const result = await host.client.prompt(
      sessionId,
      `/script [{"say":"First "},{"say":"message."},{"sleep_ms":1},{"say":"Second message."}]`,
    );
    expect(result.text).toBe("First message.\n\nSecond message.");
  });

  it("aborting a prompt's signal cancels the turn", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const abort = new AbortController();
    const pending = host.client.prompt(sessionId, `/script [{"sleep_ms":30000},{"say":"too late"}]`, {
      signal: abort.signal,
    });
    await waitFor(async () => (await host.client.stats()).sessions.busy === 1);
    abort.abort();
    const result = await pending;
    expect(result.stopReason).toBe("cancelled");
    expect(result.text).toBe("");
    // An already aborted signal cancels at once.
    const again = await host.client.prompt(sessionId, `/script [{"sleep_ms":30000}]`, { signal: AbortSignal.abort() });
    expect(again.stopReason).toBe("cancelled");
    expect((await host.client.prompt(sessionId, "still here")).text).toBe("You said: still here");
  });

  it("stats() reports sessions, threads, memory and a resettable event-loop lag window", async () => {
    const cwd = tempDir();
    const resetSentAt = performance.now();
    const before = await host.client.stats({ resetEventLoopDelay: true });
    const resetAnsweredAt = performance.now();
    expect(before.pid).toBe(host.pid);
    const a = await host.client.newSession(cwd);
    await host.client.newSession(cwd);
    const pending = host.client.prompt(a.sessionId, `/script [{"sleep_ms":30000}]`);
    await waitFor(async () => (await host.client.stats()).sessions.busy === 1);
    const duringSentAt = performance.now();
    const during = await host.client.stats();
    const duringAnsweredAt = performance.now();
    expect(during.sessions.live).toBe(before.sessions.live + 2);
    expect(during.threads.workers).toBeGreaterThanOrEqual(during.sessions.live);
    expect(during.threads.process).toBeGreaterThan(during.threads.workers);
    expect(during.memory.rssBytes).toBeGreaterThan(during.memory.heapUsedBytes);
    // The lag figures are of the window the reset opened: it began while the reset was on its way, so its length is
    // bracketed by what this client saw between the two requests.
    expect(during.eventLoopDelayMs.windowMs).toBeGreaterThanOrEqual(duringSentAt - resetAnsweredAt);
    expect(during.eventLoopDelayMs.windowMs).toBeLessThanOrEqual(duringAnsweredAt - resetSentAt);
    // The window restarts at each reset, and only then.
    const reset = await host.client.stats({ resetEventLoopDelay: true });
    const after = await host.client.stats();
    expect(after.eventLoopDelayMs.windowMs).toBeLessThan(reset.eventLoopDelayMs.windowMs);
    expect((await host.client.stats()).eventLoopDelayMs.windowMs).toBeGreaterThanOrEqual(
      after.eventLoopDelayMs.windowMs,
    );
    await host.client.cancel(a.sessionId);
    expect((await pending).stopReason).toBe("cancelled");
    expect((await host.client.stats()).sessions.busy).toBe(0);
  });

  it("attach drives a host over streams it did not spawn; dispose closes the connection", async () => {
    const child = spawn(process.execPath, [CLI, "serve", "--state-dir", tempDir("ash-state-")], {
      stdio: ["pipe", "pipe", "ignore"],
    });
    await once(child, "spawn");
    const exited = once(child, "exit");
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    );
    const client = await HostClient.attach(stream);
    expect(client.child).toBeNull();
    expect(client.pid).toBeNull();
    expect(client.initializeResponse.agentInfo?.name).toBe("acp-session-host");
    const { sessionId } = await client.newSession(tempDir());
    expect((await client.prompt(sessionId, "attached")).text).toBe("You said: attached");
    expect(await client.dispose()).toBeNull();
    await client.closed;
    // The host still runs: it is the caller's. Closing its stdin ends it cleanly.
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    expect((await exited)[0]).toBe(0);
  });

  it("spawn rejects when the host exits before answering initialize", async () => {
    await expect(HostClient.spawn({ hostArgs: ["--max-sessions", "zero"] })).rejects.toThrow(/closed/);
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("condition not met");
}
