// --detached-close-ms: a session whose connection went away and that no connection took over is closed after that
// long (it leaves the host's table; its log stays), and a later connection resumes it with nothing lost.
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { type HostClient } from "../../src/client/index.js";
import { transcript } from "../support/durable.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

let host: RemoteHost;
beforeAll(async () => {
  host = await startRemoteHost(["--detached-close-ms", "1500"]);
});
afterAll(async () => {
  expect(await host.stop()).toBe(0);
});

const open = async (client: HostClient, sessionId: string) =>
  (await client.status()).sessionRows.some((row) => row.sessionId === sessionId);

it("closes a detached session nobody took over, and a later connection resumes it", async () => {
  const cwd = tempDir();
  const first = await connectHost(host.wsUrl);
  const { sessionId } = await first.newSession(cwd);
  await first.prompt(sessionId, "before the drop");
  const keptCwd = tempDir();
  const kept = await first.newSession(keptCwd);
  const watcher = await connectHost(host.httpUrl);
  await first.dispose();
  // Taken over before the time is up: it stays open.
  await watcher.resume(kept.sessionId, keptCwd);

  await waitFor("the detached session to be closed", async () => !(await open(watcher, sessionId)));
  // Logged once its worker is released, a moment after it left the table.
  await waitFor("the close to be logged", () => host.stderr().includes("detached session closed"));

  expect(await open(watcher, kept.sessionId)).toBe(true);
  const second = await connectHost(host.httpUrl);
  try {
    await second.resume(sessionId, cwd);
    expect(await open(second, sessionId)).toBe(true);
    // Over Streamable HTTP the replayed updates and load's answer may travel on different streams: the updates are
    // waited for, not assumed in before the answer.
    const replayed: SessionUpdate[] = [];
    const off = second.onSessionUpdate(sessionId, (update) => replayed.push(update));
    await second.load(sessionId, cwd);
    await waitFor("the replay to arrive", () => transcript(replayed).length >= 2);
    off();
    expect(transcript(replayed)).toEqual(["user: before the drop", "agent: You said: before the drop"]);
    expect((await second.prompt(sessionId, "back again")).text).toBe("You said: back again");
  } finally {
    await second.dispose();
    await watcher.dispose();
  }
});
