// Who owns a session in a fleet sharing one PostgreSQL store, through real hosts listening on loopback: a live host
// lets a session go when another asks (not while a prompt is in flight there), a stopped host's session is taken
// once its lease expires and the stopped host never writes to it again, a delete on one host removes the session
// for all, and tenants stay apart across hosts.
import { afterAll, describe, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { startHosts, type FleetHost } from "../support/fleet.js";
import { tempDir } from "../support/host.js";
import { postgresPerFile, query } from "../support/postgres.js";
import { tokensFile } from "../support/remote-host.js";
import { script, waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

const cluster = postgresPerFile();

const clients: HostClient[] = [];
const hosts: FleetHost[] = [];

afterAll(async () => {
  await Promise.all(clients.map((client) => client.dispose().catch(() => {})));
  await Promise.all(hosts.map((host) => host.stop("SIGKILL").catch(() => {})));
});

async function fleet(count: number, args: string[] = []): Promise<{ url: string; hosts: FleetHost[] }> {
  const url = await cluster.database();
  const started = await startHosts(count, url, args);
  hosts.push(...started);
  return { url, hosts: started };
}

async function connect(host: FleetHost, token?: string): Promise<HostClient> {
  const client = await connectHost(host.url, token ? { token } : {});
  clients.push(client);
  return client;
}

const owner = async (url: string, sessionId: string) =>
  (
    await query<{ owner: string | null; epoch: string }>(url, "SELECT owner, epoch FROM ash_sessions WHERE id = $1", [
      sessionId,
    ])
  )[0];

describe("fleet: session ownership", () => {
  it("takeover between two live hosts: refused while a prompt is in flight there, then the session moves and the first host lets it go", async () => {
    const {
      url,
      hosts: [h1, h2],
    } = await fleet(2);
    const a = await connect(h1!);
    const b = await connect(h2!);
    const cwd = tempDir();
    const { sessionId } = await a.newSession(cwd);
    expect((await a.prompt(sessionId, "on h1")).text).toBe("You said: on h1");
    expect(await owner(url, sessionId)).toMatchObject({ owner: "h1" });
    // The store tells every host of the fleet who holds sessions: h2 sees h1 with its one (read every few seconds).
    await waitFor("h2 to see h1 holding the session", async () => {
      const hosts = (await b.stats()).store.fleetHosts;
      return hosts?.length === 1 && hosts[0]!.hostId === "h1" && hosts[0]!.sessions === 1;
    });

    const busy = a.prompt(sessionId, script({ sleep_ms: 60_000 }, { say: "late" }));
    await waitFor("the prompt to be in flight on h1", async () => (await a.stats()).sessions.busy === 1);
    const refused = await b.resume(sessionId, cwd).then(
      () => null,
      (error: { code?: number; message?: string; data?: { reason?: string } }) => error,
    );
    expect(refused?.code).toBe(-32600);
    expect(refused?.data?.reason).toBe("HELD_ELSEWHERE");
    expect(refused?.message).toContain("a prompt is in flight");
    expect(refused?.message).toContain("host h1");
    await a.cancel(sessionId);
    expect((await busy).stopReason).toBe("cancelled");

    await b.resume(sessionId, cwd);
    expect(await owner(url, sessionId)).toMatchObject({ owner: "h2" });
    expect((await b.prompt(sessionId, "on h2")).text).toBe("You said: on h2");
    // h1 let it go: it is no longer in h1's table, and a prompt there is answered as for a session it does not have.
    expect((await a.stats()).sessions.live).toBe(0);
    await expect(a.prompt(sessionId, "back on h1?")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "UNKNOWN_SESSION" }),
    });
  });

  it("a stopped owner: its session is taken once its lease has expired, and after SIGCONT it never writes to it again", async () => {
    const {
      url,
      hosts: [h1, h2],
    } = await fleet(2, ["--lease-ms", "1500"]);
    const a = await connect(h1!);
    const b = await connect(h2!);
    const cwd = tempDir();
    const { sessionId } = await a.newSession(cwd);
    await a.prompt(sessionId, "first");
    // A turn that will append after a pause: h1 is stopped while it sleeps.
    const stalled = a.prompt(
      sessionId,
      script({ say: "before the pause" }, { sleep_ms: 1000 }, { say: "after the pause" }),
    );
    await waitFor(
      "the first part of the turn to be in the store",
      async () =>
        (
          await query(url, "SELECT 1 FROM ash_records WHERE session_id = $1 AND entry LIKE '%before the pause%'", [
            sessionId,
          ])
        ).length > 0,
    );
    h1!.signal("SIGSTOP");
    try {
      await b.resume(sessionId, cwd);
      expect(await owner(url, sessionId)).toMatchObject({ owner: "h2" });
      expect((await b.prompt(sessionId, "on h2")).text).toBe("You said: on h2");
    } finally {
      h1!.signal("SIGCONT");
    }
    const failed = await stalled.then(
      () => null,
      (error: { code?: number; message?: string; data?: { reason?: string } }) => error,
    );
    expect(failed?.code).toBe(-32603);
    expect(failed?.data?.reason).toBe("SESSION_MOVED");
    expect(failed?.message).toContain("moved");
    await waitFor("h1 to drop the session", async () => (await a.stats()).sessions.live === 0);
    expect((await b.prompt(sessionId, "still h2's")).text).toBe("You said: still h2's");

    const records = await query<{ seq: string; epoch: string; entry: string }>(
      url,
      "SELECT seq, epoch, entry FROM ash_records WHERE session_id = $1 ORDER BY seq",
      [sessionId],
    );
    // One writer per epoch: the epochs never go back, and nothing of h1's turn after the pause was written.
    const epochs = records.map((record) => Number(record.epoch));
    expect(epochs).toEqual([...epochs].sort((x, y) => x - y));
    const said = records.flatMap((record) => {
      const entry = JSON.parse(record.entry) as { type: string; blocks?: string[] };
      return entry.type === "assistant_message" ? (entry.blocks ?? []) : [];
    });
    expect(said).toEqual(["You said: first", "before the pause", "You said: on h2", "You said: still h2's"]);
    expect(records.map((record) => Number(record.seq))).toEqual(records.map((_, index) => index));
    // The turn h1 never finished is closed as interrupted by h2's restore, before h2's own turns.
    const ends = records.flatMap((record) => {
      const entry = JSON.parse(record.entry) as { type: string; stopReason?: string };
      return entry.type === "turn_end" ? [entry.stopReason] : [];
    });
    expect(ends).toEqual(["end_turn", "interrupted", "end_turn", "end_turn"]);
  });

  it("session/delete on one host deletes it for every host: its owner drops it, no host lists or loads it", async () => {
    const {
      url,
      hosts: [h1, h2, h3],
    } = await fleet(3);
    const a = await connect(h1!);
    const b = await connect(h2!);
    const c = await connect(h3!);
    const cwd = tempDir();
    const { sessionId } = await a.newSession(cwd);
    await a.prompt(sessionId, "soon gone");
    await b.delete(sessionId);
    await waitFor("h1 to drop the deleted session", async () => (await a.stats()).sessions.live === 0);
    for (const client of [a, b, c])
      expect((await client.list()).sessions.map((session) => session.sessionId)).not.toContain(sessionId);
    await expect(c.load(sessionId, cwd)).rejects.toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    expect(await query(url, "SELECT 1 FROM ash_records WHERE session_id = $1", [sessionId])).toEqual([]);
    expect(await query(url, "SELECT 1 FROM ash_tombstones WHERE id = $1", [sessionId])).toHaveLength(1);
  });

  it("tenants stay apart across hosts: another tenant's session is one that does not exist, on every host", async () => {
    const tokens = tokensFile(["alice", "bob"]);
    const {
      hosts: [h1, h2],
    } = await fleet(2, ["--tokens-file", tokens.path]);
    const alice = await connect(h1!, tokens.tokens.alice);
    const bob = await connect(h2!, tokens.tokens.bob);
    const aliceOnH2 = await connect(h2!, tokens.tokens.alice);
    const cwd = tempDir();
    const { sessionId } = await alice.newSession(cwd);
    await alice.prompt(sessionId, "alice's");
    expect((await bob.list()).sessions).toEqual([]);
    // Each listed session names its tenant, from the store.
    expect(
      (await aliceOnH2.list()).sessions.map((session) => [session.sessionId, session._meta?.["acp-session-host"]]),
    ).toEqual([[sessionId, expect.objectContaining({ tenant: "alice" })]]);
    await expect(bob.load(sessionId, cwd)).rejects.toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    await expect(bob.resume(sessionId, cwd)).rejects.toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    await bob.delete(sessionId);
    expect((await alice.prompt(sessionId, "still there")).text).toBe("You said: still there");
  });

  it("a dead owner's sessions: the taking host starts their threads while their leases run out, then restores them all", async () => {
    const {
      hosts: [h1, h2],
    } = await fleet(2, ["--warm-workers", "1"]);
    const a = await connect(h1!);
    const b = await connect(h2!);
    const cwd = tempDir();
    const ids = await Promise.all(Array.from({ length: 12 }, async () => (await a.newSession(cwd)).sessionId));
    for (const id of ids) await a.prompt(id, "on h1");
    const standbyBefore = (await b.stats()).threads.standby;
    expect(standbyBefore).toBeLessThan(ids.length);
    await h1!.stop("SIGKILL");
    let answered = 0;
    const resumed = Promise.all(ids.map((id) => b.resume(id, cwd).then(() => answered++)));
    // Every resume waits for its lease; meanwhile h2 has started a thread for each.
    await waitFor("h2 to start a thread for each session waiting", async () =>
      (await b.stats()).threads.standby >= ids.length ? true : answered > 0 ? "too late" : false,
    ).then((seen) => expect(seen).toBe(true));
    expect(answered).toBe(0);
    await resumed;
    for (const id of ids) expect((await b.prompt(id, "on h2")).text).toBe("You said: on h2");
  });
});
