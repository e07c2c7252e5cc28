// Several clients on one live session, through a real host over WebSocket and Streamable HTTP: two observers and a
// controller attached beside the owning connection see the same updates in the same order (by event id) through a
// 50-turn run with commands, permissions and child sessions (theirs under the child's id); a new connection's
// session/load replays the same durable updates with the same ids; a stored session no host has open is opened for an
// attach.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { compareEventPositions, parseEventId } from "../../src/protocol/event-id.js";
import { tempDir } from "../support/host.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";
import { bash, script, waitFor } from "../support/tools.js";

let host: RemoteHost;
let tokens: ReturnType<typeof tokensFile>;
const clients: HostClient[] = [];

beforeAll(async () => {
  tokens = tokensFile(["alice", "bob"], []);
  host = await startRemoteHost(["--tokens-file", tokens.path]);
});
afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose()));
  expect(await host.stop()).toBe(0);
});

async function client(url: string, token: string, permission: "allow" | "deny" = "deny"): Promise<HostClient> {
  const connected = await connectHost(url, { token, permission });
  clients.push(connected);
  return connected;
}

const eventId = (update: SessionUpdate) => update._meta?.eventId as string;

function record(client: HostClient, sessionId: string): { updates: SessionUpdate[]; children: SessionUpdate[] } {
  const seen = { updates: [] as SessionUpdate[], children: [] as SessionUpdate[] };
  client.onAnyUpdate((notification) => {
    if (notification.sessionId === sessionId) seen.updates.push(notification.update);
    else seen.children.push(notification.update);
  });
  return seen;
}

const spawnAgent = (input: Record<string, unknown>) => ({ tool: "spawn_agent", input });

it("observers and a controller see the owner's run in one order, and session/load replays it with the same ids", async () => {
  const owner = await client(host.wsUrl, tokens.tokens.alice!, "allow");
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  const ownerSeen = record(owner, sessionId);
  const watchers = [
    await client(host.wsUrl, tokens.tokens.alice!),
    await client(host.wsUrl, tokens.tokens.alice!),
    await client(host.httpUrl, tokens.tokens.alice!, "allow"),
  ];
  const seen = watchers.map((watcher) => record(watcher, sessionId));
  await watchers[0]!.attach(sessionId, { role: "observer" });
  await watchers[1]!.attach(sessionId, { role: "observer" });
  await watchers[2]!.attach(sessionId, { role: "controller" });

  const turns = 50;
  const asked: string[] = [];
  owner.permission = (request) => {
    asked.push(request.toolCall.toolCallId);
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  for (let turn = 0; turn < turns; turn++) {
    // In ask mode every command asks: the owner and the controller are both asked, the first answer wins.
    const steps =
      turn % 10 === 5
        ? [
            spawnAgent({ prompt: script({ say: `child of turn ${turn}` }, bash("echo child")) }),
            { say: "child said {{result}}" },
          ]
        : turn % 3 === 0
          ? [bash(`echo turn ${turn}`), { say: `ran: {{result}}` }]
          : [{ say: `turn ${turn} part one` }, { say: `turn ${turn} part two` }];
    await owner.prompt(sessionId, script(...steps));
  }
  // The controller prompts too; the owning connection sees it like any other turn.
  await watchers[2]!.prompt(sessionId, script({ say: "from the controller" }));
  const last = eventId(ownerSeen.updates.at(-1)!);
  await waitFor("every watcher to have the last update", () =>
    seen.every((s) => s.updates.some((update) => eventId(update) === last)),
  );

  const ids = (updates: SessionUpdate[]) => updates.map(eventId);
  expect(asked.length).toBeGreaterThan(10);
  // The children's traffic reached every WebSocket client under the child's id (over Streamable HTTP the SDK's client
  // reads a session's traffic on a stream of its own, which it opens only for sessions it sent something about).
  for (const watcher of [seen[0]!, seen[1]!, ownerSeen]) expect(watcher.children.length).toBeGreaterThan(4);
  expect(seen[1]!.children).toEqual(seen[0]!.children);
  expect(ownerSeen.children).toEqual(
    seen[0]!.children.filter((update) => update.sessionUpdate !== "user_message_chunk"),
  );
  // Every update numbered, in increasing order, the same for every attached client.
  for (const s of seen) {
    const positions = ids(s.updates).map((id) => parseEventId(id)!);
    for (let i = 1; i < positions.length; i++)
      expect(compareEventPositions(positions[i - 1]!, positions[i]!)).toBeLessThan(0);
    expect(s.updates).toEqual(seen[0]!.updates);
  }
  // The owner is shown the same but for the prompts' own text (the observers see what was asked).
  expect(ownerSeen.updates).toEqual(seen[0]!.updates.filter((update) => update.sessionUpdate !== "user_message_chunk"));
  expect(seen[0]!.updates.filter((update) => update.sessionUpdate === "user_message_chunk")).toHaveLength(turns + 1);

  // A new connection of the tenant loads the session: what it replays is what was shown, with the same ids.
  const loader = await client(host.wsUrl, tokens.tokens.alice!);
  const replayed = await loader.load(sessionId, cwd);
  const byId = new Map(seen[0]!.updates.map((update) => [eventId(update), update]));
  expect(replayed.length).toBeGreaterThan(turns * 2);
  for (const update of replayed) expect(byId.get(eventId(update))).toEqual(update);
});

it("a stored session no host has open is opened for an attach, and an attach replays it from the start", async () => {
  const owner = await client(host.wsUrl, tokens.tokens.alice!);
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  await owner.prompt(sessionId, "first");
  await owner.close(sessionId);
  const watcher = await client(host.httpUrl, tokens.tokens.alice!);
  const seen = record(watcher, sessionId);
  const answer = await watcher.attach(sessionId, { role: "controller", replayFrom: { type: "start" } });
  expect(answer).toMatchObject({ role: "controller", turnRunning: false });
  expect(seen.updates.map((update) => update.sessionUpdate)).toEqual(["user_message_chunk", "agent_message_chunk"]);
  // A controller of a session no connection owns prompts it like its owner would.
  expect((await watcher.prompt(sessionId, "second")).text).toBe("You said: second");
  await waitFor("the host to say it opened the session", () => host.stderr().includes("session opened for an attach"));
});
