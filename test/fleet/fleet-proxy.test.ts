// A fleet of three real hosts on one PostgreSQL store behind HAProxy, run from deploy/haproxy.cfg: connections through
// the proxy spread over the hosts and every session is listed from each; a host killed with SIGKILL mid-turn loses no
// turn whose end a client saw (a reconnecting HostClient resumes its sessions on a live host through the proxy); a
// rolling restart of every host under load loses no session.
import { afterAll, describe, expect, it } from "vitest";
import { ConnectionLost, type HostClient } from "../../src/client/index.js";
import { Proxy, startHosts, type FleetHost } from "../support/fleet.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile, query } from "../support/postgres.js";
import { script, waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

// A killed host loses no turn whose end a client saw: the cluster syncs what it commits.
const cluster = postgresPerFile({ durable: true });

const LEASE_MS = 2000;

/** What a prompt may be answered by a host that a restart is ending (docs/errors.md): nothing else. */
const RESTART_REASONS = ["SHUTTING_DOWN"];

const clients: HostClient[] = [];
const hosts: FleetHost[] = [];
const proxies: Proxy[] = [];

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose().catch(() => {})));
  await Promise.all(proxies.map((proxy) => proxy.stop()));
  await Promise.all(hosts.map((host) => host.stop("SIGKILL").catch(() => {})));
});

async function fleetBehindProxy(): Promise<{ url: string; hosts: FleetHost[]; proxy: Proxy }> {
  const url = await cluster.database();
  const started = await startHosts(3, url, ["--lease-ms", String(LEASE_MS)]);
  hosts.push(...started);
  const proxy = await Proxy.start(started);
  proxies.push(proxy);
  return { url, hosts: started, proxy };
}

async function connect(url: string, reconnect = false): Promise<HostClient> {
  const client = await connectHost(url, reconnect ? { reconnect: { initialDelayMs: 50, maxDelayMs: 500 } } : {});
  clients.push(client);
  return client;
}

const texts = (updates: Awaited<ReturnType<HostClient["load"]>>) =>
  updates.flatMap((update) =>
    update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? [update.content.text] : [],
  );

describe("fleet behind HAProxy", () => {
  it("sessions made through the proxy land on several hosts, and each host lists all of them", async () => {
    const { url, hosts: fleet, proxy } = await fleetBehindProxy();
    // Connections held open at once: leastconn gives each to the host with the fewest.
    const viaProxy = await Promise.all(Array.from({ length: 6 }, () => connect(proxy.url)));
    const ids = await Promise.all(viaProxy.map(async (client) => (await client.newSession(tempDir())).sessionId));
    const owners = await query<{ owner: string }>(
      url,
      "SELECT DISTINCT owner FROM ash_sessions WHERE id = ANY($1::uuid[])",
      [ids],
    );
    expect(owners.length).toBeGreaterThanOrEqual(2);
    for (const host of fleet) {
      const direct = await connect(host.url);
      expect((await direct.list()).sessions.map((session) => session.sessionId).sort()).toEqual([...ids].sort());
    }
  });

  it("kill -9 of a host mid-turn: a reconnecting client resumes every session it had on a live host, and every turn whose end it saw replays", async () => {
    const { url, hosts: fleet, proxy } = await fleetBehindProxy();
    const client = await connect(proxy.url, true);
    const cwds = Array.from({ length: 4 }, () => tempDir());
    const ids = await Promise.all(cwds.map(async (cwd) => (await client.newSession(cwd)).sessionId));
    const seen = new Map<string, string[]>(ids.map((id) => [id, []]));
    for (const id of ids) {
      for (const word of ["a", "b"]) {
        const result = await client.prompt(id, `${word} of ${id}`);
        seen.get(id)!.push(result.text);
      }
    }
    const victim = fleet.find((host) => host.stderr().includes(ids[0]!))!;
    const inFlight = client.prompt(ids[0]!, script({ sleep_ms: 60_000 }, { say: "never" }));
    // Mid-turn: the victim has the turn's prompt in the store (the turn runs).
    await waitFor("the in-flight turn in the store", async () => {
      const [row] = await query<{ n: string }>(
        url,
        "SELECT count(*) AS n FROM ash_records WHERE session_id = $1::uuid AND entry LIKE '%user_message%sleep_ms%'",
        [ids[0]],
      );
      return Number(row!.n) === 1;
    });
    victim.signal("SIGKILL");
    const lost = await inFlight.then(
      () => null,
      (error: unknown) => error,
    );
    expect(lost).toBeInstanceOf(ConnectionLost);
    expect((lost as ConnectionLost).sessionId).toBe(ids[0]);
    // Every session answers on a live host (after the dead host's leases expired), through the same client.
    for (const id of ids) {
      const result = await client.prompt(id, `c of ${id}`);
      seen.get(id)!.push(result.text);
    }
    for (const [index, id] of ids.entries()) expect(texts(await client.load(id, cwds[index]!))).toEqual(seen.get(id));
    expect(fleet.some((host) => host !== victim && host.stderr().includes(ids[0]!))).toBe(true);
  });

  it("a rolling restart of every host under load loses no session and no turn whose end was seen", async () => {
    const { hosts: fleet, proxy } = await fleetBehindProxy();
    const client = await connect(proxy.url, true);
    const cwds = Array.from({ length: 6 }, () => tempDir());
    const ids = await Promise.all(cwds.map(async (cwd) => (await client.newSession(cwd)).sessionId));
    const seen = new Map<string, string[]>(ids.map((id) => [id, []]));
    let restarting = true;
    const load = ids.map(async (id) => {
      for (let i = 0; restarting || seen.get(id)!.length < 2; i++) {
        try {
          seen.get(id)!.push((await client.prompt(id, `${i} of ${id}`)).text);
        } catch (error) {
          // A prompt cut by a host's end (its session's log says how it ended), or sent to a host on its way out or to
          // one whose session another host has taken: the next one goes to a live host. A store's or a worker's
          // failure is no part of a restart.
          if (error instanceof ConnectionLost) continue;
          const reason = (error as { data?: { reason?: unknown } }).data?.reason;
          if ((error as { code?: number }).code !== -32603 || !RESTART_REASONS.includes(String(reason))) throw error;
        }
      }
    });
    for (const host of fleet) {
      const [code] = await host.stop("SIGTERM");
      expect(code).toBe(0);
      await host.start();
    }
    restarting = false;
    await Promise.all(load);
    for (const [index, id] of ids.entries()) {
      const replayed = texts(await client.load(id, cwds[index]!));
      // Every answer the client saw is in the log, in order; a turn cut by a restart may be there too.
      expect(replayed.filter((text) => seen.get(id)!.includes(text))).toEqual(seen.get(id));
      expect(seen.get(id)!.length).toBeGreaterThanOrEqual(2);
    }
  });
});
