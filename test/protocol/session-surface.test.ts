// The session surface beyond the core, through real hosts on both stores, every message checked against the SDK's
// schema: session/status answers open or saved and changes nothing; a session is titled by its first prompt's first
// line, a client's title replaces it (session_info_update) and both last; session/archive ends the session's work and
// hides it from the default list, the archived filter finds it, it still loads, session/unarchive brings it back; and
// an update_plan's plan is shown and replayed.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { postgresPerFile } from "../support/postgres.js";
import { anyEventId, script, waitFor } from "../support/tools.js";

const cluster = postgresPerFile();

const hosts = hostsPerTest();

const STORES = [
  { name: "state dir", args: async () => ["--state-dir", tempDir("ash-state-")] },
  {
    name: "PostgreSQL",
    args: async () => ["--store", await cluster.database(), "--lease-ms", "1000", "--state-dir", tempDir("ash-state-")],
  },
];

async function start(args: string[], ...more: string[]): Promise<TestHost> {
  const host = await startHost([...args, ...more]);
  hosts.push(host);
  return host;
}

/** A host's end before the next one takes its store (the next one checks its messages too). */
async function stop(host: TestHost): Promise<void> {
  hosts.splice(hosts.indexOf(host), 1);
  await host.dispose();
  expect(host.violations).toEqual([]);
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code?: number; message?: string; data?: unknown }) => error,
  );

describe("initialize", () => {
  it("advertises the session capabilities the host serves, and nothing it does not", async () => {
    const host = await start([]);
    const capabilities = host.client.initializeResponse.agentCapabilities;
    expect(capabilities?.loadSession).toBe(true);
    expect(capabilities?.sessionCapabilities).toEqual({
      list: {},
      resume: {},
      close: {},
      delete: {},
      fork: {},
      status: {},
      title: {},
      archive: {},
      systemPrompt: { mode: { override: {} } },
      // unstable, not in the SDK's schema yet (docs/protocol.md)
      attach: {},
    });
  });
});

describe.each(STORES)("on the $name", (store) => {
  it("session/status: open while the session is in the host, saved when stored only; unknown is -32002; and it changes nothing", async () => {
    const args = await store.args();
    const host = await start(args, "--warm-workers", "0");
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    await host.client.prompt(sessionId, "hello");
    expect(await host.client.status(sessionId)).toBe("open");
    const other = (await host.client.newSession(cwd)).sessionId;
    await host.client.prompt(other, "the other one");
    await host.client.close(sessionId);
    expect(await host.client.status(sessionId)).toBe("saved");

    const unknown = crypto.randomUUID();
    const error = await rejection(host.client.status(unknown));
    expect(error).toMatchObject({ code: -32002, data: { reason: "SESSION_NOT_FOUND", sessionId: unknown } });
    expect(await rejection(host.client.status("not-a-session"))).toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });

    // No side effect: no worker started, no session opened, the list in the same order with the same times.
    const listed = await host.client.list();
    const before = await host.client.stats();
    for (let i = 0; i < 3; i++) expect(await host.client.status(sessionId)).toBe("saved");
    const after = await host.client.stats();
    expect(after.threads.mostWorkers).toBe(before.threads.mostWorkers);
    expect(after.sessions.live).toBe(before.sessions.live);
    expect(await host.client.list()).toEqual(listed);
    expect(listed.sessions.map((session) => session.sessionId)).toEqual([other, sessionId]);
    // Not attached: a prompt from this connection is refused as for a session the host does not have open.
    expect(await rejection(host.client.prompt(sessionId, "no"))).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "UNKNOWN_SESSION" }),
    });

    await stop(host);
    const again = await start(args, "--warm-workers", "0");
    expect(await again.client.status(other)).toBe("saved");
    expect((await again.client.stats()).threads.mostWorkers).toBe(0);
  });

  it("titles: the first prompt's first line (cut to 80) until a client sets one; session_info_update for each; stored, listed, kept across a restart", async () => {
    const args = await store.args();
    // No standby pool: its refill would start threads whenever it pleases, and the count below is of sessions'.
    const host = await start(args, "--warm-workers", "0");
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const first = `${"a long first line ".repeat(6)}\nand a second line`;
    const turn = await host.client.prompt(sessionId, first);
    const expected = `${"a long first line ".repeat(6).trim().slice(0, 79)}…`;
    expect(turn.updates[0]).toEqual({
      sessionUpdate: "session_info_update",
      title: expected,
      _meta: { eventId: anyEventId },
    });
    expect(
      (await host.client.prompt(sessionId, "a second prompt")).updates.map((update) => update.sessionUpdate),
    ).toEqual(["agent_message_chunk"]);
    expect((await host.client.list()).sessions[0]).toMatchObject({ sessionId, title: expected });

    const seen: SessionUpdate[] = [];
    host.client.onSessionUpdate(sessionId, (update) => seen.push(update));
    expect(await host.client.setTitle(sessionId, "  Plan\tA \n for the build  ")).toBe("Plan A for the build");
    expect(seen).toEqual([
      { sessionUpdate: "session_info_update", title: "Plan A for the build", _meta: { eventId: anyEventId } },
    ]);
    await host.client.prompt(sessionId, "a third prompt");
    expect((await host.client.list()).sessions[0]).toMatchObject({ sessionId, title: "Plan A for the build" });

    // A session set a title before its first prompt keeps it; a stored session is retitled without being opened.
    const early = (await host.client.newSession(cwd)).sessionId;
    await host.client.setTitle(early, "Named first");
    expect(
      (await host.client.prompt(early, "its first prompt")).updates.some(
        (update) => update.sessionUpdate === "session_info_update",
      ),
    ).toBe(false);
    await host.client.close(early);
    const workers = (await host.client.stats()).threads.mostWorkers;
    expect(await host.client.setTitle(early, "Named again")).toBe("Named again");
    expect((await host.client.stats()).threads.mostWorkers).toBe(workers);

    expect(await rejection(host.client.setTitle(sessionId, " \n\t "))).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "title" }),
    });
    expect(await rejection(host.client.setTitle(crypto.randomUUID(), "nobody"))).toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });

    await stop(host);
    const again = await start(args);
    const titles = new Map((await again.client.list()).sessions.map((session) => [session.sessionId, session.title]));
    expect(titles.get(sessionId)).toBe("Plan A for the build");
    expect(titles.get(early)).toBe("Named again");
    // Loaded, it keeps the title it has: a prompt does not retitle it.
    await again.client.resume(sessionId, cwd);
    expect(
      (await again.client.prompt(sessionId, "after the restart")).updates.some(
        (update) => update.sessionUpdate === "session_info_update",
      ),
    ).toBe(false);
    expect((await again.client.list()).sessions.find((session) => session.sessionId === sessionId)?.title).toBe(
      "Plan A for the build",
    );
  });

  it("session/archive cancels the turn in flight, ends the worker, hides the session; the filter finds it; it loads; unarchive brings it back", async () => {
    const args = await store.args();
    const host = await start(args, "--warm-workers", "0");
    const cwd = tempDir();
    const kept = (await host.client.newSession(cwd)).sessionId;
    await host.client.prompt(kept, "kept");
    const { sessionId } = await host.client.newSession(cwd);
    await host.client.prompt(sessionId, "to be archived");
    const started: SessionUpdate[] = [];
    const busy = host.client.prompt(sessionId, script({ say: "working" }, { sleep_ms: 60_000 }), {
      onUpdate: (update) => started.push(update),
    });
    await waitFor("the turn to be under way", () =>
      started.some((update) => update.sessionUpdate === "agent_message_chunk"),
    );
    const workers = (await host.client.stats()).threads.workers;
    await host.client.archive(sessionId);
    expect((await busy).stopReason).toBe("cancelled");
    await waitFor("its worker to end", async () => (await host.client.stats()).threads.workers === workers - 1);
    expect(await host.client.status(sessionId)).toBe("saved");

    const ids = async (archived?: string) =>
      (await host.client.list(archived ? { archived } : {})).sessions.map((session) => [
        session.sessionId,
        session.archived,
      ]);
    expect(await ids()).toEqual([[kept, false]]);
    expect(await ids("exclude")).toEqual([[kept, false]]);
    expect(await ids("only")).toEqual([[sessionId, true]]);
    expect(new Set(await ids("include"))).toEqual(
      new Set([
        [kept, false],
        [sessionId, true],
      ]),
    );
    expect(await rejection(host.client.list({ archived: "_everything" }))).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "archived" }),
    });
    expect(await rejection(host.client.archive(crypto.randomUUID()))).toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    expect(await rejection(host.client.unarchive(crypto.randomUUID()))).toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    // Archiving an archived session succeeds.
    await host.client.archive(sessionId);

    await stop(host);
    const again = await start(args, "--warm-workers", "0");
    const only = (await again.client.list({ archived: "only" })).sessions.map((session) => session.sessionId);
    expect(only).toEqual([sessionId]);
    // Unarchiving loads nothing; an archived session still loads and replays.
    await again.client.unarchive(sessionId);
    expect((await again.client.stats()).threads.mostWorkers).toBe(0);
    expect((await again.client.list()).sessions.map((session) => session.sessionId).sort()).toEqual(
      [kept, sessionId].sort(),
    );
    await again.client.archive(sessionId);
    const replayed = await again.client.load(sessionId, cwd);
    expect(
      replayed.flatMap((update) =>
        update.sessionUpdate === "agent_message_chunk" && update.content.type === "text" ? [update.content.text] : [],
      ),
    ).toEqual(["You said: to be archived", "working"]);
    expect((await again.client.prompt(sessionId, "still usable")).text).toBe("You said: still usable");
    await again.client.unarchive(sessionId);
    expect((await again.client.list()).sessions.map((session) => session.sessionId)).toContain(sessionId);
  });

  it("update_plan: each plan is shown as a plan update, journaled, and replayed by session/load", async () => {
    const args = await store.args();
    const host = await start(args);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const plans = [
      [
        { content: "read the code", priority: "high", status: "in_progress" },
        { content: "write the fix", priority: "medium", status: "pending" },
      ],
      [
        { content: "read the code", priority: "high", status: "completed" },
        { content: "write the fix", priority: "medium", status: "in_progress" },
      ],
    ];
    const turn = await host.client.prompt(
      sessionId,
      script(
        { tool: "update_plan", input: { entries: plans[0] } },
        { tool: "update_plan", input: { entries: plans[1] } },
        { say: "planned" },
      ),
    );
    const shown = (updates: SessionUpdate[]) =>
      updates.flatMap((update) => (update.sessionUpdate === "plan" ? [update.entries] : []));
    expect(shown(turn.updates)).toEqual(plans);
    expect(turn.text).toBe("planned");
    await stop(host);
    const again = await start(args);
    expect(shown(await again.client.load(sessionId, cwd))).toEqual(plans);
  });
});
