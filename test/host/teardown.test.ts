import { once } from "node:events";
import { describe, expect, it } from "vitest";
import type { HostClient, PromptResult } from "../../src/client/index.js";
import { OUTCOME_UNKNOWN } from "../../workers/log/log-repair.js";
import { exists, logEntries, paths } from "../support/durable.js";
import { descendantIdentities, endHost, startHost, tempDir } from "../support/host.js";
import { bash, processesRunning, script, waitFor } from "../support/tools.js";

const sleepy = script({ say: "working" }, { sleep_ms: 60_000 });

/** Prompts each session with sleepy; resolves once every one has said it is working (its turn is under way). */
async function working(client: HostClient, ids: string[]): Promise<Promise<PromptResult>[]> {
  const started: Promise<void>[] = [];
  const turns = ids.map((id) => {
    let saidIt: () => void = () => {};
    started.push(new Promise<void>((resolve) => (saidIt = resolve)));
    return client.prompt(id, sleepy, { onUpdate: () => saidIt() });
  });
  await Promise.all(started);
  return turns;
}

describe("teardown", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "on %s settles pending prompts as cancelled, exits 0 and leaves nothing behind",
    async (signal) => {
      const host = await startHost();
      const ids = (await Promise.all([0, 1, 2, 3].map(() => host.client.newSession(tempDir())))).map(
        (s) => s.sessionId,
      );
      const turns = await working(host.client, ids);
      const before = descendantIdentities(host.pid);
      const { code, left } = await endHost(host, signal, before);
      const results = await Promise.all(turns);
      for (const result of results) expect(result.stopReason).toBe("cancelled");
      expect(code).toBe(0);
      expect(left).toEqual([]);
      expect(host.stderr()).toContain("teardown finished");
    },
  );

  it("on stdin EOF exits 0 and logs why it ended", async () => {
    const host = await startHost();
    const { sessionId } = await host.client.newSession(tempDir());
    expect((await host.client.prompt(sessionId, "hi")).text).toBe("You said: hi");
    expect(await host.dispose()).toBe(0);
    expect(host.stderr()).toMatch(/"reason":"stdin closed".*"teardown finished"/s);
  });

  it("is memoized: a signal during a stdin-closed teardown does not start a second one", async () => {
    const host = await startHost();
    await host.client.newSession(tempDir());
    const exited = once(host.child, "exit") as Promise<[number | null]>;
    host.child.stdin!.end();
    process.kill(host.pid, "SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(host.stderr().match(/teardown started/g)).toHaveLength(1);
  });

  it("on stdin EOF answers every prompt in flight as cancelled before it exits", async () => {
    const host = await startHost();
    const ids = (await Promise.all([0, 1, 2, 3].map(() => host.client.newSession(tempDir())))).map((s) => s.sessionId);
    const turns = await working(host.client, ids);
    const { code } = await endHost(host, "stdin closed");
    const results = await Promise.all(turns);
    for (const result of results) expect(result.stopReason).toBe("cancelled");
    expect(code).toBe(0);
  });

  // The end does not wait for a worker to dispose: a session's log holds every turn the client saw end (fsynced at
  // its end), and the turn that was cut is closed as interrupted when the session is next opened, as after a crash.
  it(
    "leaves every log whole and unlocked: a next host loads sessions cut mid-turn and they take prompts",
    { timeout: 60_000 },
    async () => {
      const stateDir = tempDir("ash-state-");
      const cwd = tempDir();
      const first = await startHost(["--state-dir", stateDir, "--default-mode", "auto"]);
      const [inModel, inBash] = (await Promise.all([0, 1].map(() => first.client.newSession(cwd)))).map(
        (s) => s.sessionId,
      ) as [string, string];
      for (const id of [inModel, inBash])
        expect((await first.client.prompt(id, "before")).text).toBe("You said: before");
      const turns = [
        ...(await working(first.client, [inModel])),
        first.client.prompt(inBash, script(bash("sleep 30"))),
      ];
      await waitFor("the command to start", () => processesRunning(first.pid, "sleep 30").length > 0);

      const { code } = await endHost(first, "SIGTERM");
      expect(code).toBe(0);
      for (const result of await Promise.all(turns)) expect(result.stopReason).toBe("cancelled");
      for (const id of [inModel, inBash]) expect(exists(paths(stateDir, id).lock)).toBe(false);

      const second = await startHost(["--state-dir", stateDir, "--default-mode", "auto"]);
      try {
        for (const id of [inModel, inBash]) {
          await second.client.load(id, cwd);
          expect(
            logEntries(stateDir, id)
              .filter((entry) => entry.type === "turn_end")
              .map((entry) => entry.stopReason),
          ).toEqual(["end_turn", "interrupted"]);
          expect((await second.client.prompt(id, "after")).text).toBe("You said: after");
        }
        expect(
          logEntries(stateDir, inBash).find((entry) => entry.type === "tool_result" && entry.name === "bash"),
        ).toMatchObject({ result: OUTCOME_UNKNOWN });
        expect(second.stderr()).not.toContain("stale session lock taken over");
      } finally {
        await second.dispose();
      }
    },
  );

  // Sessions hibernated, waking, waiting for a worker slot, mid-restore, mid-replay, in bash and in the model, all
  // at once: whatever ends the host, it exits 0, every prompt is answered and nothing is left running.
  it.each(["SIGTERM", "stdin closed"] as const)(
    "ends a host with sessions in every state at once (%s)",
    { timeout: 120_000 },
    async (ending) => {
      const stateDir = tempDir("ash-state-");
      const host = await startHost([
        "--state-dir",
        stateDir,
        "--max-live-workers",
        "6",
        "--warm-workers",
        "2",
        "--hibernate-after-ms",
        "300",
        "--default-mode",
        "auto",
      ]);
      const newSessions = async (n: number) =>
        (await Promise.all(Array.from({ length: n }, () => host.client.newSession(tempDir())))).map((s) => s.sessionId);

      // A stored session with some history, closed: session/load restores and replays it below.
      const [stored] = await newSessions(1);
      for (let i = 0; i < 20; i++) await host.client.prompt(stored!, `turn ${i}`);
      await host.client.close(stored!);
      // Hibernated: answered once, then idle past --hibernate-after-ms.
      const hibernated = await newSessions(6);
      await Promise.all(hibernated.map((id) => host.client.prompt(id, "hello")));
      await waitFor("the idle sessions to hibernate", () =>
        hibernated.every((id) => new RegExp(`"sessionId":"${id}"[^\n]*"session hibernated`).test(host.stderr())),
      );

      // Busy: in bash and in the model; more than the live-worker budget, so some wait for a slot.
      const inBash = await newSessions(4);
      const inModel = await newSessions(8);
      let modelWorking: () => void = () => {};
      const aModelTurnWorks = new Promise<void>((resolve) => (modelWorking = resolve));
      const turns = [
        ...inBash.map((id) => host.client.prompt(id, script(bash("sleep 30")))),
        ...inModel.map((id) => host.client.prompt(id, sleepy, { onUpdate: () => modelWorking() })),
        // Waking: hibernated sessions prompted now, restored from their logs while the host ends.
        ...hibernated.map((id) => host.client.prompt(id, sleepy)),
      ];
      const storedCwd = (await host.client.list()).sessions.find((s) => s.sessionId === stored)!.cwd;
      const loading = host.client.load(stored!, storedCwd).then(
        () => "replayed",
        (error: { code?: number }) => error.code,
      );
      await aModelTurnWorks;
      await waitFor("a command to run", () => processesRunning(host.pid, "sleep 30").length > 0);
      const before = descendantIdentities(host.pid);

      const { code, signal, left } = await endHost(host, ending, before);
      expect([code, signal]).toEqual([0, null]);
      expect(left).toEqual([]);
      const answers = await Promise.allSettled(turns);
      for (const answer of answers) {
        expect(answer.status).toBe("fulfilled");
        if (answer.status === "fulfilled") expect(answer.value.stopReason).toBe("cancelled");
      }
      // The load in flight is answered too (replayed, or refused because the host is ending), never left hanging.
      expect(["replayed", -32603]).toContain(await loading);
      expect(host.stderr()).toContain("teardown finished");
    },
  );
});
