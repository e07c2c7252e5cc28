// Event ids come from the session log's order: an attach after an event replays exactly what followed it (from the
// recent updates, transients included, or from the log, durable ones only), the same ids survive a compaction of the
// log and a restart of the host, a cursor the log does not hold is CURSOR_GAP, and detach is idempotent.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterEach, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, type RemoteHost } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";
import { bash, script, waitFor } from "../support/tools.js";

const eventId = (update: SessionUpdate) => update._meta?.eventId as string;
const hosts: RemoteHost[] = [];
const clients: HostClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.dispose()));
  for (const host of hosts.splice(0)) expect(await host.stop()).toBe(0);
});

async function host(args: string[] = []): Promise<RemoteHost> {
  const started = await startRemoteHost(["--default-mode", "auto", ...args]);
  hosts.push(started);
  return started;
}

async function client(url: string): Promise<HostClient> {
  const connected = await connectHost(url);
  clients.push(connected);
  return connected;
}

function collect(client: HostClient, sessionId: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  client.onSessionUpdate(sessionId, (update) => updates.push(update));
  return updates;
}

const turn = (n: number) =>
  script({ say: `turn ${n} starts` }, bash(`echo out ${n}`), { say: `turn ${n}: {{result}}` });

it("an attach after an event gets exactly what followed it, from the recent updates or from the log", async () => {
  const server = await host();
  const owner = await client(server.wsUrl);
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  for (let n = 0; n < 4; n++) await owner.prompt(sessionId, turn(n));

  // Nobody attached yet: no recent updates are kept, so the log answers, with what its entries show.
  const late = await client(server.wsUrl);
  const lateSeen = collect(late, sessionId);
  const fromStart = await late.attach(sessionId, { replayFrom: { type: "start" } });
  // session/load takes the session over from its owner: the loader drives it from here on.
  const loader = await client(server.wsUrl);
  const loaded = await loader.load(sessionId, cwd);
  expect(lateSeen).toEqual(loaded);
  expect(fromStart.lastEventId).toBe(eventId(loaded.at(-1)!));
  const middle = eventId(loaded[Math.floor(loaded.length / 2)]!);
  const afterMiddle = await client(server.wsUrl);
  const afterSeen = collect(afterMiddle, sessionId);
  await afterMiddle.attach(sessionId, { replayFrom: { type: "after_event", eventId: middle } });
  expect(afterSeen).toEqual(loaded.slice(Math.floor(loaded.length / 2) + 1));

  // From now on recent updates are kept: a cursor among them gets every one after it, tool output as it ran included.
  const watcher = await client(server.wsUrl);
  const live = collect(watcher, sessionId);
  await watcher.attach(sessionId);
  for (let n = 4; n < 8; n++) await loader.prompt(sessionId, turn(n));
  await waitFor("the watcher to have the last turn", () =>
    live.some((u) => JSON.stringify(u).includes("turn 7: out 7")),
  );
  expect(live.some((u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress")).toBe(true);
  const cut = Math.floor(live.length / 3);
  const resumed = await client(server.wsUrl);
  const resumedSeen = collect(resumed, sessionId);
  await resumed.attach(sessionId, { replayFrom: { type: "after_event", eventId: eventId(live[cut]!) } });
  expect(resumedSeen).toEqual(live.slice(cut + 1));

  // A cursor past what the log holds: CURSOR_GAP, and nothing attached.
  await expect(
    resumed.attach(sessionId, { replayFrom: { type: "after_event", eventId: "999999.0" } }),
  ).rejects.toMatchObject({ code: -32602, data: { reason: "CURSOR_GAP" } });

  // Detach is idempotent and stops the updates; the session goes on.
  await watcher.detach(sessionId);
  await watcher.detach(sessionId);
  const before = live.length;
  await loader.prompt(sessionId, turn(8));
  await waitFor("the resumed client to have turn 8", () =>
    resumedSeen.some((u) => JSON.stringify(u).includes("turn 8: out 8")),
  );
  expect(live.length).toBe(before);
});

it("event ids are the same after log compactions and a restart of the host", async () => {
  const stateDir = tempDir("ash-state-");
  const args = ["--state-dir", stateDir, "--log-compact-bytes", "2048"];
  let server = await host(args);
  let owner = await client(server.wsUrl);
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  const watcher = await client(server.wsUrl);
  const live = collect(watcher, sessionId);
  await watcher.attach(sessionId);
  // Mostly short turns: their marks and usage are what a compaction folds away, so the log does get smaller.
  for (let n = 0; n < 80; n++) await owner.prompt(sessionId, n % 10 === 0 ? turn(n) : `hello ${n}`);
  await waitFor("the watcher to have the last turn", () => live.some((u) => JSON.stringify(u).includes("hello 79")));
  await waitFor("a compaction of the log", () => server.stderr().includes("session log compacted"));

  await Promise.all(clients.splice(0).map((c) => c.dispose()));
  expect(await hosts.pop()!.stop()).toBe(0);
  server = await host(args);
  owner = await client(server.wsUrl);
  const replayed = await owner.load(sessionId, cwd);
  // What the log shows again is what was shown live, id for id (the updates no entry shows are not replayed).
  const liveById = new Map(live.map((update) => [eventId(update), update]));
  expect(replayed.length).toBeGreaterThan(30);
  for (const update of replayed) expect(liveById.get(eventId(update))).toEqual(update);
  const durable = live.filter(
    (update) => /^\d+\.\d+$/.test(eventId(update)) && update.sessionUpdate !== "user_message_chunk",
  );
  expect(replayed.filter((update) => update.sessionUpdate !== "user_message_chunk")).toEqual(durable);

  // The next turn's ids follow the last ones.
  const next = await owner.prompt(sessionId, turn(80));
  const [entry] = eventId(next.updates[0]!).split(".").map(Number);
  expect(entry).toBeGreaterThan(Number(eventId(replayed.at(-1)!).split(".")[0]));
});
