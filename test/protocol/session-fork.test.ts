// session/fork through real hosts on both stores, every message checked against the SDK's schema: a fork's history is
// its source's up to the source's last ended turn (a turn in flight is neither waited for nor included, and goes on);
// it takes the source's mode and model there and the request's cwd; its header names the source and the fork point;
// it works from a live, a closed (stored only) and a compacted source; and both sessions survive a restart and a
// kill -9, each replaying its own history.
import { readFileSync, statSync } from "node:fs";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import type { LogHeader } from "../../src/protocol/log/session-log.js";
import { paths } from "../support/durable.js";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { postgresPerFile, query } from "../support/postgres.js";
import { script, waitFor } from "../support/tools.js";

const cluster = postgresPerFile();

const hosts = hostsPerTest();

interface Store {
  name: string;
  args(): Promise<string[]>;
  header(args: string[], sessionId: string): Promise<LogHeader>;
}

const STORES: Store[] = [
  {
    name: "state dir",
    args: async () => ["--state-dir", tempDir("ash-state-")],
    header: async (args, sessionId) =>
      JSON.parse(readFileSync(paths(args[1]!, sessionId).log, "utf8").split("\n")[0]!) as LogHeader,
  },
  {
    name: "PostgreSQL",
    args: async () => ["--store", await cluster.database(), "--lease-ms", "1000", "--state-dir", tempDir("ash-state-")],
    header: async (args, sessionId) =>
      JSON.parse(
        (await query<{ header: string }>(args[1]!, "SELECT header FROM ash_sessions WHERE id = $1", [sessionId]))[0]!
          .header,
      ) as LogHeader,
  },
];

async function start(args: string[], ...more: string[]): Promise<TestHost> {
  const host = await startHost([...args, ...more]);
  hosts.push(host);
  return host;
}

async function stop(host: TestHost, how: "dispose" | "kill" = "dispose"): Promise<void> {
  hosts.splice(hosts.indexOf(host), 1);
  if (how === "kill") await host.kill();
  else await host.dispose();
  expect(host.violations).toEqual([]);
}

/** What a reader compares of a replay: the prompts and the answers. */
const said = (updates: SessionUpdate[]) =>
  updates.flatMap((update) =>
    update.sessionUpdate === "user_message_chunk" && update.content.type === "text"
      ? [`> ${update.content.text}`]
      : update.sessionUpdate === "agent_message_chunk" && update.content.type === "text"
        ? [update.content.text]
        : [],
  );

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code?: number }) => error,
  );

describe.each(STORES)("session/fork on the $name", (store) => {
  it("forks a live session mid-turn: the fork has the ended turns, the source's mode and the request's cwd; the source's turn goes on", async () => {
    const args = await store.args();
    const host = await start(args);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd, { mode: "read-only" });
    for (const word of ["one", "two"]) await host.client.prompt(sessionId, word);
    const seen: SessionUpdate[] = [];
    const third = script({ say: "three, begun" }, { sleep_ms: 120_000 }, { say: "three, done" });
    let settled = false;
    const running = host.client
      .prompt(sessionId, third, { onUpdate: (update) => seen.push(update) })
      .finally(() => (settled = true));
    await waitFor("the third turn to be under way", () =>
      seen.some((update) => update.sessionUpdate === "agent_message_chunk"),
    );

    const elsewhere = tempDir();
    const fork = await host.client.fork(sessionId, elsewhere);
    // Answered while the source's turn runs on: it was not waited for.
    expect(settled).toBe(false);
    expect(await host.client.status(sessionId)).toBe("open");
    expect(fork.sessionId).not.toBe(sessionId);
    expect(fork.modes?.currentModeId).toBe("read-only");
    expect(fork._meta?.["acp-session-host"]).toEqual({ forkOf: { sessionId, turns: 2 } });
    const header = await store.header(args, fork.sessionId);
    expect(header).toMatchObject({
      sessionId: fork.sessionId,
      cwd: elsewhere,
      mode: "read-only",
      forkOf: { sessionId, turns: 2 },
    });
    expect(said(await host.client.load(fork.sessionId, elsewhere))).toEqual([
      "> one",
      "You said: one",
      "> two",
      "You said: two",
    ]);
    expect((await host.client.prompt(fork.sessionId, "four in the fork")).text).toBe("You said: four in the fork");

    // The source's turn went on meanwhile; it ends when its client says so.
    expect(settled).toBe(false);
    await host.client.cancel(sessionId);
    expect((await running).stopReason).toBe("cancelled");
    expect((await host.client.prompt(sessionId, "four in the source")).text).toBe("You said: four in the source");

    const listed = new Map((await host.client.list()).sessions.map((session) => [session.sessionId, session]));
    expect(listed.get(fork.sessionId)).toMatchObject({
      cwd: elsewhere,
      title: "one",
      _meta: { "acp-session-host": { forkOf: { sessionId, turns: 2 } } },
    });

    await stop(host);
    const again = await start(args);
    expect(said(await again.client.load(sessionId, cwd))).toEqual([
      "> one",
      "You said: one",
      "> two",
      "You said: two",
      `> ${third}`,
      "three, begun",
      "> four in the source",
      "You said: four in the source",
    ]);
    expect(said(await again.client.load(fork.sessionId, elsewhere))).toEqual([
      "> one",
      "You said: one",
      "> two",
      "You said: two",
      "> four in the fork",
      "You said: four in the fork",
    ]);
  });

  it("forks a closed session and a compacted one, and a fork of a fork; both sessions survive a kill -9 and replay their own histories", async () => {
    const args = await store.args();
    const host = await start(args, "--log-compact-bytes", "1024");
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const words = Array.from({ length: 12 }, (_, i) => `word ${i} ${"x".repeat(120)}`);
    for (const word of words) await host.client.prompt(sessionId, word);
    await host.client.close(sessionId);
    const fromStored = await host.client.fork(sessionId, cwd);
    expect(fromStored._meta?.["acp-session-host"]).toEqual({ forkOf: { sessionId, turns: 12 } });
    const replay = words.flatMap((word) => [`> ${word}`, `You said: ${word}`]);
    expect(said(await host.client.load(fromStored.sessionId, cwd))).toEqual(replay);
    await host.client.prompt(fromStored.sessionId, "fork's own");
    const forkOfFork = await host.client.fork(fromStored.sessionId, cwd);
    expect(forkOfFork._meta?.["acp-session-host"]).toEqual({ forkOf: { sessionId: fromStored.sessionId, turns: 13 } });
    await host.client.prompt(forkOfFork.sessionId, "second fork's own");

    await stop(host, "kill");
    const again = await start(args, "--log-compact-bytes", "1024");
    expect(said(await again.client.load(sessionId, cwd))).toEqual(replay);
    expect(said(await again.client.load(fromStored.sessionId, cwd))).toEqual([
      ...replay,
      "> fork's own",
      "You said: fork's own",
    ]);
    expect(said(await again.client.load(forkOfFork.sessionId, cwd))).toEqual([
      ...replay,
      "> fork's own",
      "You said: fork's own",
      "> second fork's own",
      "You said: second fork's own",
    ]);
    expect((await again.client.prompt(forkOfFork.sessionId, "after the kill")).text).toBe("You said: after the kill");
  });

  it("refuses an unknown source (-32002) and a cwd that is not an existing absolute directory (-32602)", async () => {
    const host = await start(await store.args());
    const { sessionId } = await host.client.newSession(tempDir());
    expect(await rejection(host.client.fork(crypto.randomUUID(), tempDir()))).toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    expect(await rejection(host.client.fork(sessionId, "relative/dir"))).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
    expect(await rejection(host.client.fork(sessionId, `${tempDir()}/missing`))).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
  });
});

describe("a hibernated source", () => {
  it("is forked from its log and stays hibernated: the fork gets a worker, the source none", async () => {
    const host = await start([
      "--state-dir",
      tempDir("ash-state-"),
      "--hibernate-after-ms",
      "300",
      "--warm-workers",
      "0",
    ]);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    await host.client.prompt(sessionId, "before its nap");
    const stateOf = async (id: string) =>
      (await host.client.status({ pageSize: 100 })).sessionRows.find((row) => row.sessionId === id)?.state;
    await waitFor("the source to hibernate", async () => (await stateOf(sessionId)) === "hibernated");
    const fork = await host.client.fork(sessionId, cwd);
    expect((await host.client.prompt(fork.sessionId, "awake in the fork")).text).toBe("You said: awake in the fork");
    expect(await stateOf(sessionId)).toBe("hibernated");
    expect(said(await host.client.load(fork.sessionId, cwd))).toEqual([
      "> before its nap",
      "You said: before its nap",
      "> awake in the fork",
      "You said: awake in the fork",
    ]);
  });
});

describe("a fork's cost in the state dir", () => {
  it("is one copy of the source's log up to the fork point: a compacted source gives a compacted fork no larger than it", async () => {
    const stateDir = tempDir("ash-state-");
    const host = await start(["--state-dir", stateDir, "--log-compact-bytes", "1024"]);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    // Short turns: what a compaction folds away (each turn's start and end) outweighs what its snapshot repeats.
    for (let i = 0; i < 20; i++) await host.client.prompt(sessionId, `turn ${i}`);
    await host.client.close(sessionId);
    const source = paths(stateDir, sessionId).log;
    const sourceHeader = JSON.parse(readFileSync(source, "utf8").split("\n")[0]!) as LogHeader;
    expect(sourceHeader.formatVersion).toBe(2);
    const fork = await host.client.fork(sessionId, cwd);
    const forked = paths(stateDir, fork.sessionId).log;
    const [forkHeaderLine, ...forkRest] = readFileSync(forked, "utf8").split("\n");
    const [sourceHeaderLine, ...sourceRest] = readFileSync(source, "utf8").split("\n");
    expect((JSON.parse(forkHeaderLine!) as LogHeader).formatVersion).toBe(2);
    // Everything after the header is the source's, byte for byte (no turn was in flight).
    expect(forkRest.join("\n")).toBe(sourceRest.join("\n"));
    expect(statSync(forked).size - forkHeaderLine!.length).toBe(statSync(source).size - sourceHeaderLine!.length);
  });
});
