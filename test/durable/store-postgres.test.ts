// The PostgreSQL store through real hosts over stdio, on a throwaway cluster: what a session records survives its
// host, one statement commits many sessions' turns (group commit), a compacted session restores from its snapshot and
// replays its whole history, a database restarted mid-run costs the turns that could not commit and nothing else, and
// a database that cannot be reached at start is refused in one line.
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { CLI } from "../support/cli-path.js";
import { startHost, tempDir } from "../support/host.js";
import { postgresPerFile, query, TestPostgres } from "../support/postgres.js";
import { startRemoteHost } from "../support/remote-host.js";
import { script, waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

// These tests claim committed turns survive: the cluster syncs what it commits.
const cluster = postgresPerFile({ durable: true });

const texts = (updates: Awaited<ReturnType<HostClient["load"]>>) =>
  updates.flatMap((update) =>
    update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? [update.content.text] : [],
  );

describe("PostgreSQL store", () => {
  it("a session's turns survive its host: another host process lists it, loads it (replaying every turn) and prompts it", async () => {
    const url = await cluster.database();
    expect(await query(url, "SHOW fsync")).toEqual([{ fsync: "on" }]);
    const cwd = tempDir();
    const first = await startHost(["--store", url]);
    const { sessionId } = await first.client.newSession(cwd);
    for (const word of ["one", "two", "three"])
      expect((await first.client.prompt(sessionId, word)).text).toBe(`You said: ${word}`);
    await first.dispose();

    const rows = await query<{ owner: string | null; turns: number; title: string }>(
      url,
      "SELECT owner, turns, title FROM ash_sessions WHERE id = $1",
      [sessionId],
    );
    // The host gave its lease up as it ended: another host takes the session at once.
    expect(rows).toEqual([{ owner: null, turns: 3, title: "one" }]);

    const second = await startHost(["--store", url]);
    try {
      const listed = await second.client.list();
      expect(
        listed.sessions.map((session) => [session.sessionId, session.title, session._meta?.["acp-session-host"]]),
      ).toEqual([[sessionId, "one", expect.objectContaining({ turns: 3 })]]);
      // A session made without a tenant (over stdio) lists no tenant.
      expect(listed.sessions[0]!._meta?.["acp-session-host"]).not.toHaveProperty("tenant");
      expect(texts(await second.client.load(sessionId, cwd))).toEqual([
        "You said: one",
        "You said: two",
        "You said: three",
      ]);
      expect((await second.client.prompt(sessionId, "four")).text).toBe("You said: four");
      const records = await query<{ seq: string; epoch: string }>(
        url,
        "SELECT seq, epoch FROM ash_records WHERE session_id = $1 ORDER BY seq",
        [sessionId],
      );
      // Sequence numbers have no gap; the second host wrote at a higher epoch, after the first host's records.
      expect(records.map((record) => Number(record.seq))).toEqual(records.map((_, index) => index));
      const epochs = records.map((record) => Number(record.epoch));
      expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
      expect(new Set(epochs).size).toBe(2);
    } finally {
      await second.dispose();
    }
  });

  it("turns of many sessions ending together are committed in fewer statements than turns (group commit)", async () => {
    const url = await cluster.database();
    const host = await startHost(["--store", url]);
    try {
      const ids = await Promise.all(
        Array.from({ length: 20 }, async () => (await host.client.newSession(tempDir())).sessionId),
      );
      await Promise.all(ids.map((id) => host.client.prompt(id, "together")));
      const before = (await host.client.stats()).store;
      await Promise.all(
        ids.map(async (id) => {
          for (let i = 0; i < 5; i++) await host.client.prompt(id, `round ${i}`);
        }),
      );
      const after = (await host.client.stats()).store;
      const turns = 20 * 5;
      expect(after!.commits - before!.commits).toBeGreaterThan(0);
      expect(after!.commits - before!.commits).toBeLessThan(turns);
      const counts = await query<{ turns: number }>(url, "SELECT turns FROM ash_sessions ORDER BY id");
      expect(counts.map((row) => row.turns)).toEqual(ids.map(() => 6));
    } finally {
      await host.dispose();
    }
  });

  it("a compacted session restores from its snapshot in a fresh worker and session/load still replays its whole history", async () => {
    const url = await cluster.database();
    const cwd = tempDir();
    const host = await startHost(["--store", url, "--log-compact-bytes", "1024", "--hibernate-after-ms", "0"]);
    try {
      const { sessionId } = await host.client.newSession(cwd);
      const words = Array.from({ length: 12 }, (_, i) => `word ${i} ${"x".repeat(100)}`);
      for (const word of words) await host.client.prompt(sessionId, word);
      const [row] = await query<{ snapshot_seq: string }>(url, "SELECT snapshot_seq FROM ash_sessions WHERE id = $1", [
        sessionId,
      ]);
      expect(Number(row!.snapshot_seq)).toBeGreaterThan(0);
      await host.client.close(sessionId);
      // load: a fresh worker from the snapshot, then the records before it fetched for the replay.
      expect(texts(await host.client.load(sessionId, cwd))).toEqual(words.map((word) => `You said: ${word}`));
      expect((await host.client.prompt(sessionId, "after")).text).toBe("You said: after");
    } finally {
      await host.dispose();
    }
  });

  it("the database restarted mid-run: a turn that cannot commit fails -32603 naming the store, /healthz says 503, and the host recovers by itself", async () => {
    const own = await TestPostgres.start({ durable: true });
    try {
      const url = await own.database();
      const cwd = tempDir();
      const host = await startRemoteHost(["--store", url, "--lease-ms", "1000"]);
      const client = await connectHost(host.wsUrl);
      const health = async () => (await fetch(host.httpUrl.replace(/\/acp$/, "/healthz"))).status;
      try {
        const { sessionId } = await client.newSession(cwd);
        expect((await client.prompt(sessionId, "before")).text).toBe("You said: before");
        await own.stopServer();
        const failed = await client.prompt(sessionId, "while down").then(
          () => null,
          (error: { code?: number; message?: string; data?: { reason?: string } }) => error,
        );
        expect(failed?.code).toBe(-32603);
        expect(failed?.data?.reason).toBe("STORE_FAILED");
        expect(failed?.message).toContain("session store postgres");
        await waitFor("/healthz to say 503", async () => (await health()) === 503);
        await own.startServer();
        await waitFor("/healthz to say 200", async () => (await health()) === 200);
        expect((await client.prompt(sessionId, "after")).text).toBe("You said: after");
        // The turn that could not commit is not in the log; the others are, whole.
        expect(texts(await client.load(sessionId, cwd))).toEqual(["You said: before", "You said: after"]);
      } finally {
        await client.dispose();
        await host.stop();
      }
    } finally {
      await own.stop();
    }
  });

  it("a database that cannot be reached at start: exit 2 and one line naming the store", () => {
    const result = spawnSync(
      process.execPath,
      [CLI, "--store", `postgres://ash@/nope?host=${encodeURIComponent(tempDir())}`],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(result.status).toBe(2);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^acp-session-host: --store postgres postgres:\/\/ash@\/nope/);
  });

  it("a command's full output goes into the store when its session leaves the host, and store output reads it back", async () => {
    const url = await cluster.database();
    const host = await startHost(["--store", url, "--default-mode", "auto"]);
    let sessionId: string;
    try {
      ({ sessionId } = await host.client.newSession(tempDir()));
      const result = await host.client.prompt(
        sessionId,
        script({ tool: "bash", input: { command: "seq 1 5000" } }, { say: "done" }),
      );
      expect(result.toolCalls[0]?.status).toBe("completed");
      await host.client.close(sessionId);
    } finally {
      await host.dispose();
    }
    const list = spawnSync(process.execPath, [CLI, "store", "output", "--store", url, "--session", sessionId], {
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(list.status).toBe(0);
    const names = list.stdout.trim().split("\n");
    expect(names).toHaveLength(1);
    const shown = spawnSync(
      process.execPath,
      [CLI, "store", "output", "--store", url, "--session", sessionId, "--name", names[0]!],
      { encoding: "utf8", timeout: 30_000 },
    );
    expect(shown.stdout).toBe(`${Array.from({ length: 5000 }, (_, i) => i + 1).join("\n")}\n`);
  });

  it("store migrate brings a new database's schema to this version, and again finds it there", async () => {
    const url = await cluster.database();
    const run = () =>
      spawnSync(process.execPath, [CLI, "store", "migrate", "--store", url], { encoding: "utf8", timeout: 30_000 });
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/^schema migrated from version 0 to \d+/);
    const second = run();
    expect(second.stdout).toMatch(/^schema already at version \d+/);
    const tables = await query<{ table_name: string }>(
      url,
      "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'ash_%' ORDER BY 1",
    );
    expect(tables.map((row) => row.table_name)).toEqual([
      "ash_outputs",
      "ash_records",
      "ash_schema",
      "ash_sessions",
      "ash_tombstones",
    ]);
  });
});
