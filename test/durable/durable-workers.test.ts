import type { RequestPermissionRequest, ResumeSessionResponse } from "@agentclientprotocol/sdk/unstable";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const hosts: TestHost[] = [];
async function host(...args: string[]): Promise<TestHost> {
  return track(await startHost(args));
}
function track(started: TestHost): TestHost {
  hosts.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.dispose()));
});

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, "g"))?.length ?? 0;
// Session worker threads are counted by the host (_host/stats: made and not yet exited), not as the process's
// threads: libuv's pool and V8's helpers start threads of their own when they please.

describe("sessions outlive their workers", () => {
  it("after a worker crash the next prompt runs in a fresh worker restored from the log: the earlier turns are there", async () => {
    const h = await host("--allow-fault-injection", "--warm-workers", "1");
    const cwd = tempDir();
    const { sessionId } = await h.client.newSession(cwd);
    await h.client.prompt(sessionId, "one");
    await h.client.prompt(sessionId, "two");
    const crash = `/script [{"crash":"kaboom"}]`;
    await expect(h.client.prompt(sessionId, crash)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining("kaboom"),
      data: expect.objectContaining({ reason: "WORKER_FAILED" }),
    });
    expect((await h.client.prompt(sessionId, "three")).text).toBe("You said: three");

    // The fresh worker started from the log: two finished turns and the crashed one, closed as interrupted.
    expect(h.stderr()).toMatch(/"sessionId":"[^"]+","turns":3,"msg":"session restored from its log in a fresh worker"/);
    // The session is live, so load replays the restored worker's own history: all four turns.
    expect(transcript(await h.client.load(sessionId, cwd))).toEqual([
      "user: one",
      "agent: You said: one",
      "user: two",
      "agent: You said: two",
      `user: ${crash}`,
      "user: three",
      "agent: You said: three",
    ]);
    const [listed] = (await h.client.list({ cwd })).sessions;
    expect(listed).toMatchObject({ sessionId, title: "one", _meta: { "acp-session-host": { turns: 4 } } });
  });

  it("an allow-always grant outlives the worker it was given to", async () => {
    const asked: RequestPermissionRequest[] = [];
    const h = track(
      await startHost(["--allow-fault-injection", "--warm-workers", "1"], (request) => {
        asked.push(request);
        return { outcome: { outcome: "selected", optionId: "allow_always" } };
      }),
    );
    const { sessionId } = await h.client.newSession(tempDir(), { mode: "ask" });
    const bash = (command: string) => `/script [{"tool":"bash","input":{"command":"${command}"}},{"say":"{{result}}"}]`;
    expect((await h.client.prompt(sessionId, bash("echo granted"))).text).toContain("granted");
    expect(asked).toHaveLength(1);
    await expect(h.client.prompt(sessionId, `/script [{"crash":"gone"}]`)).rejects.toMatchObject({
      message: expect.stringContaining("gone"),
      data: expect.objectContaining({ reason: "WORKER_FAILED" }),
    });
    expect((await h.client.prompt(sessionId, bash("echo still granted"))).text).toContain("still granted");
    expect(asked).toHaveLength(1);
    expect(h.stderr()).toContain("session restored from its log in a fresh worker");
  });

  it("an idle session hibernates and is restored on its next prompt, with the history of a session that never hibernated", async () => {
    const state = tempDir();
    // No standby workers either: every worker thread alive is a session's.
    const hibernating = await host(
      "--state-dir",
      state,
      "--hibernate-after-ms",
      "150",
      "--warm-workers",
      "0",
      "--max-warm-workers",
      "0",
    );
    const awake = await host("--hibernate-after-ms", "0", "--warm-workers", "0");
    const cwd = tempDir();
    const a = (await hibernating.client.newSession(cwd)).sessionId;
    const b = (await awake.client.newSession(cwd)).sessionId;
    const steps = ["first", `/script [{"say":"a"},{"tool":"no_such_tool","input":{"k":"v"}},{"say":"b"}]`, "third"];
    for (const [index, step] of steps.entries()) {
      const [slept, live] = await Promise.all([hibernating.client.prompt(a, step), awake.client.prompt(b, step)]);
      expect(transcript(slept.updates)).toEqual(transcript(live.updates));
      await eventually(() => expect(count(hibernating.stderr(), /session hibernated/)).toBe(index + 1));
      // Its worker's thread is gone.
      await eventually(async () => expect((await hibernating.client.stats()).threads.workers).toBe(0));
    }
    expect(count(hibernating.stderr(), /session restored from its log in a fresh worker/)).toBe(2);
    expect(awake.stderr()).not.toContain("session hibernated");

    // A mode set while hibernated is applied to the next worker and kept in the log.
    await hibernating.client.setMode(a, "read-only");
    const replayed = await hibernating.client.load(a, cwd);
    expect(transcript(replayed)).toEqual(transcript(await awake.client.load(b, cwd)));
    expect(transcript(replayed)).toHaveLength(9);
    expect(logEntries(state, a).filter((entry) => entry.type === "mode")).toEqual([
      { type: "mode", mode: "read-only" },
    ]);
    await hibernating.client.close(a);
    const resumed = await hibernating.client.request<ResumeSessionResponse>("session/resume", {
      sessionId: a,
      cwd,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe("read-only");
  });

  it("--max-live-workers 2 with five sessions: the least recently used idle one makes room, and live threads stay bounded", async () => {
    // No standby workers: every worker thread the host makes is a session's.
    const h = await host(
      "--max-live-workers",
      "2",
      "--warm-workers",
      "0",
      "--max-warm-workers",
      "0",
      "--hibernate-after-ms",
      "0",
    );
    const cwd = tempDir();
    const ids = (await Promise.all(Array.from({ length: 5 }, () => h.client.newSession(cwd)))).map((s) => s.sessionId);
    for (const [i, id] of ids.entries())
      expect((await h.client.prompt(id, `turn 1 of ${i}`)).text).toBe(`You said: turn 1 of ${i}`);
    // All five at once: three wait for a slot, each handed over as a session goes idle.
    const results = await Promise.all(
      ids.map((id, i) => h.client.prompt(id, `/script [{"sleep_ms":30},{"say":"turn 2 of ${i}"}]`)),
    );
    results.forEach((result, i) => expect(result.text).toBe(`turn 2 of ${i}`));
    for (const [i, id] of ids.entries()) {
      expect(transcript(await h.client.load(id, cwd))).toEqual([
        `user: turn 1 of ${i}`,
        `agent: You said: turn 1 of ${i}`,
        `user: /script [{"sleep_ms":30},{"say":"turn 2 of ${i}"}]`,
        `agent: turn 2 of ${i}`,
      ]);
    }
    expect(h.stderr()).toContain("least recently used idle session");
    expect(h.stderr()).toContain("a session waits for a live worker slot");
    // Never more than two session worker threads alive at once (the host counts each from its making to its exit): a
    // slot is free again only once its thread has exited.
    const { threads } = await h.client.stats();
    expect(threads.mostWorkers).toBe(2);
    expect(threads.workers).toBeLessThanOrEqual(2);
  });
});
