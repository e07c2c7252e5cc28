// Shared sessions across a fleet on one PostgreSQL store, through real hosts: an observer attached at a host that does
// not serve the session follows it from the store, shown what session/load shows with the owner's event ids, live as
// each group commit lands; a controller's attach there while a controller is attached at the owner is OWNED_ELSEWHERE
// with the owner's host id; once none is, the attach takes the session over, and the observers, wherever they are,
// keep their streams.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { startHosts, type FleetHost } from "../support/fleet.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile } from "../support/postgres.js";
import { connectHost } from "../support/checked-host.js";
import { bash, script, waitFor } from "../support/tools.js";

const cluster = postgresPerFile();
const clients: HostClient[] = [];
const hosts: FleetHost[] = [];

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose().catch(() => {})));
  await Promise.all(hosts.map((host) => host.stop("SIGTERM").catch(() => {})));
});

async function connect(host: FleetHost): Promise<HostClient> {
  const client = await connectHost(host.url, { permission: "allow" });
  clients.push(client);
  return client;
}

const eventId = (update: SessionUpdate) => update._meta?.eventId as string;
/** What a log shows again: the updates a log entry shows (their ids have two parts). */
const durable = (updates: SessionUpdate[]) => updates.filter((update) => /^\d+\.\d+$/.test(eventId(update)));

function collect(client: HostClient, sessionId: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  client.onSessionUpdate(sessionId, (update) => updates.push(update));
  return updates;
}

it("an observer on another host follows the session from the store, and keeps following it when it moves", async () => {
  const started = await startHosts(2, await cluster.database(), ["--default-mode", "auto"]);
  hosts.push(...started);
  const [a, b] = started as [FleetHost, FleetHost];
  const owner = await connect(a);
  const cwd = tempDir();
  const { sessionId } = await owner.newSession(cwd);
  await owner.prompt(sessionId, "before anyone watched");

  // A reference observer at the owner, and one at the other host, from the start.
  const local = await connect(a);
  const localSeen = collect(local, sessionId);
  await local.attach(sessionId, { replayFrom: { type: "start" } });
  const remote = await connect(b);
  const remoteSeen = collect(remote, sessionId);
  const answer = await remote.attach(sessionId, { replayFrom: { type: "start" } });
  expect(answer.role).toBe("observer");
  await waitFor("b to say it follows", () => b.stderr().includes("it follows the session from the store"));

  for (let turn = 0; turn < 6; turn++)
    await owner.prompt(sessionId, script({ say: `turn ${turn}` }, bash(`echo out ${turn}`), { say: "{{result}}" }));
  const last = durable(localSeen).at(-1)!;
  await waitFor("the remote observer to have the last update", () =>
    remoteSeen.some((update) => eventId(update) === eventId(last)),
  );
  // The same updates with the same ids as a log replay shows them: the durable part of what the owner's clients saw.
  expect(remoteSeen).toEqual(durable(localSeen));

  // A controller attached at the owner: a controller's attach at the other host is refused with the owner's id.
  const controller = await connect(a);
  await controller.attach(sessionId, { role: "controller" });
  const elsewhere = await connect(b);
  await expect(elsewhere.attach(sessionId, { role: "controller" })).rejects.toMatchObject({
    code: -32002,
    data: { reason: "OWNED_ELSEWHERE", hostId: "h1" },
  });
  // Once it has detached, the attach at b takes the session over; both observers keep their streams.
  await controller.detach(sessionId);
  await elsewhere.attach(sessionId, { role: "controller" });
  await waitFor("a to let the session go", () => a.stderr().includes("session let go"));
  const moved = await elsewhere.prompt(sessionId, "served by h2 now");
  expect(moved.text).toBe("You said: served by h2 now");
  const movedId = eventId(durable(moved.updates).at(-1)!);
  for (const seen of [localSeen, remoteSeen])
    await waitFor("the observers to see the turn on h2", () => seen.some((update) => eventId(update) === movedId));
  expect(durable(localSeen)).toEqual(remoteSeen);
}, 120_000);
