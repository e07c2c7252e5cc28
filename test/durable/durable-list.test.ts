import { randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIDECAR_FORMAT } from "../../src/protocol/log/session-log.js";
import { eventually, exists, header, logEntries, paths, transcript, writeLog } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";

let h: TestHost;
let state: string;

beforeAll(async () => {
  state = tempDir();
  // No standby workers: every worker thread alive is a session's (counted by the host, _host/stats). A cancel grace
  // longer than a worker's dispose takes on a loaded machine: a closed turn is ended by its own worker.
  h = await startHost([
    "--state-dir",
    state,
    "--list-page-size",
    "2",
    "--warm-workers",
    "0",
    "--max-warm-workers",
    "0",
    "--cancel-grace-ms",
    "30000",
  ]);
});

/** Once no session worker thread is alive (closed sessions' threads have exited). */
function noWorkerThreads(): Promise<void> {
  return eventually(async () => expect((await h.client.stats()).threads.workers).toBe(0));
}

afterAll(async () => {
  await h.dispose();
});

async function allPages(cwd?: string): Promise<{ pages: SessionInfo[][]; sessions: SessionInfo[] }> {
  const pages: SessionInfo[][] = [];
  let cursor: string | undefined;
  do {
    const page = await h.client.list({ ...(cwd ? { cwd } : {}), ...(cursor ? { cursor } : {}) });
    pages.push(page.sessions);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return { pages, sessions: pages.flat() };
}

describe("session/list", () => {
  it("filters by cwd and pages with a cursor, most recently updated first, titled by the first prompt", async () => {
    const cwdA = tempDir();
    const cwdB = tempDir();
    const inA = await Promise.all(Array.from({ length: 5 }, () => h.client.newSession(cwdA)));
    const inB = await Promise.all(Array.from({ length: 2 }, () => h.client.newSession(cwdB)));
    const [untitled, ...titled] = inA.map((s) => s.sessionId);
    const long = `a long first prompt ${"x".repeat(200)}`;
    for (const [i, id] of titled.entries()) await h.client.prompt(id, i === 0 ? long : `title ${i}`);
    for (const [i, { sessionId }] of inB.entries()) await h.client.prompt(sessionId, `b ${i}`);
    await h.client.prompt(titled[1]!, "a second prompt does not retitle");

    const a = await allPages(cwdA);
    expect(a.pages.map((page) => page.length)).toEqual([2, 2, 1]);
    // titled[1] was prompted last; the untitled session was never prompted, so it is the oldest.
    expect(a.sessions.map((s) => s.sessionId)).toEqual([titled[1], titled[3], titled[2], titled[0], untitled]);
    expect(a.sessions.map((s) => s.title)).toEqual(["title 1", "title 3", "title 2", `${long.slice(0, 79)}…`, null]);
    for (const s of a.sessions) expect(s.cwd).toBe(cwdA);
    const times = a.sessions.map((s) => s.updatedAt!);
    expect([...times].sort().reverse()).toEqual(times);
    expect(a.sessions[0]!._meta).toMatchObject({ "acp-session-host": { turns: 2 } });

    const b = await allPages(cwdB);
    expect(b.sessions.map((s) => s.sessionId).sort()).toEqual(inB.map((s) => s.sessionId).sort());
    const everything = await allPages();
    expect(everything.pages).toHaveLength(4);
    expect(new Set(everything.sessions.map((s) => s.sessionId)).size).toBe(7);
    await Promise.all([...inA, ...inB].map((s) => h.client.close(s.sessionId)));
    // Closed sessions stay listed: the log is the session.
    expect((await allPages()).sessions).toHaveLength(7);
  });

  it("lists turns 0 for every fresh session, whether or not its worker has opened its log yet", async () => {
    const cwd = tempDir();
    // Listed at once: session/new answers before a worker (none is warm here) opens the log and writes its sidecar.
    const fresh = await Promise.all(Array.from({ length: 3 }, () => h.client.newSession(cwd)));
    // One no worker of this host will open: made by another process, a header and nothing else.
    const untouched = randomUUID();
    writeLog(state, untouched, [header(untouched, cwd)]);
    const turnsOf = (sessions: SessionInfo[]) =>
      Object.fromEntries(
        sessions.map((s) => [s.sessionId, (s._meta?.["acp-session-host"] as { turns?: number }).turns]),
      );
    const everyFresh = Object.fromEntries([...fresh.map((s) => s.sessionId), untouched].map((id) => [id, 0]));
    expect(turnsOf((await allPages(cwd)).sessions)).toEqual(everyFresh);
    await h.client.prompt(fresh[0]!.sessionId, "one turn");
    expect(turnsOf((await allPages(cwd)).sessions)).toEqual({ ...everyFresh, [fresh[0]!.sessionId]: 1 });
    await Promise.all(fresh.map((s) => h.client.close(s.sessionId)));
  });

  it("refuses a cursor it did not give out and a relative cwd", async () => {
    await expect(h.client.list({ cursor: "not-a-cursor" })).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cursor" }),
    });
    await expect(h.client.list({ cwd: "relative/dir" })).rejects.toMatchObject({ code: -32602 });
  });
});

describe("session/close and session/delete", () => {
  it("close cancels the prompt in flight, ends the worker, keeps the log, and is idempotent", async () => {
    const cwd = tempDir();
    const { sessionId } = await h.client.newSession(cwd);
    await h.client.prompt(sessionId, "kept");
    const script = `/script [{"sleep_ms":60000},{"say":"never"}]`;
    const inFlight = h.client.prompt(sessionId, script);
    await eventually(() =>
      expect(logEntries(state, sessionId).at(-1)).toMatchObject({ type: "user_message", text: script }),
    );
    await h.client.close(sessionId);
    expect((await inFlight).stopReason).toBe("cancelled");
    await h.client.close(sessionId);
    await h.client.close("00000000-0000-4000-8000-000000000000");
    await expect(h.client.prompt(sessionId, "gone?")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "UNKNOWN_SESSION" }),
    });

    await noWorkerThreads();
    const files = paths(state, sessionId);
    expect(exists(files.log)).toBe(true);
    expect(exists(files.sidecar)).toBe(true);
    expect(exists(files.lock)).toBe(false);
    // The cancelled turn was ended by its own worker before it went.
    expect(logEntries(state, sessionId).at(-1)).toMatchObject({ type: "turn_end", stopReason: "cancelled" });

    expect(transcript(await h.client.load(sessionId, cwd))).toEqual([
      "user: kept",
      "agent: You said: kept",
      `user: ${script}`,
    ]);
    expect((await h.client.prompt(sessionId, "back")).text).toBe("You said: back");
    await h.client.close(sessionId);
  });

  it("delete closes the session and removes its files for good; it is idempotent and the id is never loaded again", async () => {
    const cwd = tempDir();
    const live = (await h.client.newSession(cwd)).sessionId;
    const stored = (await h.client.newSession(cwd)).sessionId;
    await h.client.prompt(live, "doomed");
    await h.client.prompt(stored, "also doomed");
    await h.client.close(stored);
    const inFlight = h.client.prompt(live, `/script [{"sleep_ms":60000}]`);
    await eventually(() => expect(logEntries(state, live).at(-1)).toMatchObject({ type: "user_message" }));

    await h.client.delete(live);
    expect((await inFlight).stopReason).toBe("cancelled");
    await h.client.delete(stored);
    for (const id of [live, stored]) {
      const files = paths(state, id);
      for (const path of [files.log, files.sidecar, files.lock, files.outputDir]) expect(exists(path)).toBe(false);
      expect(exists(files.tombstone)).toBe(true);
      await h.client.delete(id);
      await expect(h.client.load(id, cwd)).rejects.toMatchObject({
        code: -32002,
        data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
      });
      await expect(h.client.resume(id, cwd)).rejects.toMatchObject({
        code: -32002,
        data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
      });
    }
    const never = "00000000-0000-4000-8000-000000000001";
    await h.client.delete(never);
    expect(exists(paths(state, never).tombstone)).toBe(false);
    expect((await h.client.list({ cwd })).sessions).toEqual([]);
    await noWorkerThreads();
  });
});

describe("session/list over an index of the state dir", () => {
  const stored = (dir: string, id: string, cwd: string, updatedAt: string, title: string) => {
    writeLog(dir, id, [header(id, cwd)]);
    const sidecar = {
      format: SIDECAR_FORMAT,
      sessionId: id,
      cwd,
      title,
      createdAt: "2026-01-02T03:04:05.000Z",
      updatedAt,
      turns: 1,
    };
    writeFileSync(paths(dir, id).sidecar, JSON.stringify(sidecar));
  };
  const time = (n: number) => new Date(Date.UTC(2026, 1, 1) + n * 1000).toISOString();

  it("lists what is on disk when the host starts, then what others write or delete, and a restart lists the same", async () => {
    const dir = tempDir();
    const cwd = tempDir();
    mkdirSync(join(dir, "sessions"));
    const ids = Array.from({ length: 300 }, (_, n) => {
      const id = randomUUID();
      stored(dir, id, cwd, time(n), `stored ${n}`);
      return id;
    });
    const listAll = async (host: TestHost) => {
      const sessions: SessionInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await host.client.list({ ...(cursor ? { cursor } : {}) });
        sessions.push(...page.sessions);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return sessions.map((s) => s.sessionId);
    };
    const first = await startHost(["--state-dir", dir, "--list-page-size", "37"]);
    try {
      expect(await listAll(first)).toEqual([...ids].reverse());
      // Another process (here: a hand) writes one session and deletes another's log.
      const added = randomUUID();
      stored(dir, added, cwd, time(1000), "written meanwhile");
      rmSync(paths(dir, ids[5]!).log);
      rmSync(paths(dir, ids[5]!).sidecar);
      const expected = [added, ...[...ids].reverse().filter((id) => id !== ids[5])];
      expect(await listAll(first)).toEqual(expected);
      process.kill(first.pid, "SIGKILL");
      await first.dispose().catch(() => null);
      const second = await startHost(["--state-dir", dir, "--list-page-size", "37"]);
      try {
        expect(await listAll(second)).toEqual(expected);
      } finally {
        await second.dispose();
      }
    } finally {
      await first.dispose().catch(() => null);
    }
  });
});
