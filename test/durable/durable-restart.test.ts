import { once } from "node:events";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, describe, expect, it } from "vitest";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { OUTCOME_UNKNOWN } from "../../workers/log/log-repair.js";
import { eventually, exists, logEntries, paths, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";

const hosts: TestHost[] = [];
async function host(stateDir: string, ...args: string[]): Promise<TestHost> {
  const started = await startHost(["--state-dir", stateDir, ...args]);
  hosts.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(hosts.map((h) => h.dispose()));
});

describe("a session outlives its host process", () => {
  it("after SIGKILL mid-tool-call, a new host loads it: everything the client saw is replayed, the call's outcome is unknown, the turn interrupted", async () => {
    const state = tempDir();
    const cwd = tempDir();
    const first = await host(state);
    const { sessionId } = await first.client.newSession(cwd, { mode: "auto" });
    const seen: SessionUpdate[] = [];
    first.client.onSessionUpdate(sessionId, (update) => seen.push(update));

    const script = `/script [{"say":"before the tools"},{"tool":"no_such_tool","input":{"n":1}},{"tool":"bash","input":{"command":"sleep 60"}}]`;
    expect((await first.client.prompt(sessionId, "hello")).text).toBe("You said: hello");
    const open = first.client.prompt(sessionId, script).catch((error: unknown) => error);
    await eventually(() =>
      expect(seen.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", status: "in_progress" }),
    );
    const exited = once(first.child, "exit");
    process.kill(first.pid, "SIGKILL");
    await exited;
    expect(await open).toBeInstanceOf(Error);

    const second = await host(state);
    const replay = transcript(await second.client.load(sessionId, cwd));
    expect(replay.filter((line) => line.startsWith("user: "))).toEqual(["user: hello", `user: ${script}`]);
    // What the client saw, then the final update of the call that was running: its outcome is unknown.
    expect(replay.filter((line) => !line.startsWith("user: "))).toEqual([
      ...transcript(seen),
      `tool call#2 failed: ${OUTCOME_UNKNOWN}`,
    ]);
    expect(replay).toEqual([
      "user: hello",
      "agent: You said: hello",
      `user: ${script}`,
      "agent: before the tools",
      'tool call#1: no_such_tool {"n":1}',
      'tool call#1 failed: unknown tool "no_such_tool" (the tools are: bash, bash_output, bash_kill, read_file, write_file, edit_file, list_dir, update_plan, spawn_agent)',
      expect.stringMatching(/^tool call#2: .*\{"command":"sleep 60"\}$/),
      `tool call#2 failed: ${OUTCOME_UNKNOWN}`,
    ]);
    // The dead host's lock was stale: the new host took it over.
    expect(second.stderr()).toContain("stale session lock taken over");
    const entries = logEntries(state, sessionId);
    const scriptTurn = entries.find(
      (entry): entry is Extract<LogEntry, { type: "user_message" }> =>
        entry.type === "user_message" && entry.text === script,
    );
    expect(entries.slice(-2)).toMatchObject([
      { type: "tool_result", turnId: scriptTurn?.turnId, name: "bash", result: OUTCOME_UNKNOWN, isError: true },
      { type: "turn_end", turnId: scriptTurn?.turnId, stopReason: "interrupted" },
    ]);
    expect(entries.filter((entry) => entry.type === "turn_end").map((entry) => entry.stopReason)).toEqual([
      "end_turn",
      "interrupted",
    ]);

    // The loaded session takes prompts and remembers: a third turn, then a listing that counts three.
    expect((await second.client.prompt(sessionId, "after")).text).toBe("You said: after");
    const listed = await second.client.list({ cwd });
    expect(listed.sessions).toHaveLength(1);
    expect(listed.sessions[0]).toMatchObject({
      sessionId,
      cwd,
      title: "hello",
      _meta: { "acp-session-host": { turns: 3 } },
    });
  });

  it("a session open in one host process is refused by another on the same state dir until the first lets go", async () => {
    const state = tempDir();
    const cwd = tempDir();
    const first = await host(state);
    const { sessionId } = await first.client.newSession(cwd);
    await first.client.prompt(sessionId, "mine");
    const second = await host(state);
    const refused = {
      message: expect.stringContaining(`open in another acp-session-host process (pid ${first.pid})`),
      data: { reason: "LOCKED_ELSEWHERE" },
    };
    await expect(second.client.load(sessionId, cwd)).rejects.toMatchObject(refused);
    await expect(second.client.resume(sessionId, cwd)).rejects.toMatchObject(refused);
    // Deleting it from under the first host is refused too.
    await expect(second.client.delete(sessionId)).rejects.toMatchObject(refused);
    expect(exists(paths(state, sessionId).log)).toBe(true);
    // The refused host still serves its own sessions.
    const own = await second.client.newSession(cwd);
    expect((await second.client.prompt(own.sessionId, "still here")).text).toBe("You said: still here");

    await first.client.close(sessionId);
    expect(exists(paths(state, sessionId).lock)).toBe(false);
    await second.client.resume(sessionId, cwd);
    expect((await second.client.prompt(sessionId, "moved")).text).toBe("You said: moved");
    await expect(first.client.load(sessionId, cwd)).rejects.toMatchObject({
      message: expect.stringContaining(`pid ${second.pid}`),
      data: { reason: "LOCKED_ELSEWHERE" },
    });
  });

  it("loading a session already open on this connection replays the live one instead of opening a second worker", async () => {
    const state = tempDir();
    const cwd = tempDir();
    const only = await host(state);
    const { sessionId } = await only.client.newSession(cwd);
    await only.client.prompt(sessionId, "one");
    await only.client.prompt(sessionId, "two");
    const replay = transcript(await only.client.load(sessionId, cwd));
    expect(replay).toEqual(["user: one", "agent: You said: one", "user: two", "agent: You said: two"]);
    await only.client.resume(sessionId, cwd);
    expect(only.stderr()).not.toContain("session restored from its log");
    await expect(only.client.load(sessionId, tempDir())).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "cwd" }),
    });
    expect((await only.client.prompt(sessionId, "three")).text).toBe("You said: three");
  });

  it("load and resume of sessions that are not there: -32002, and the id never names a path", async () => {
    const state = tempDir();
    const only = await host(state);
    const cwd = tempDir();
    await expect(only.client.load("00000000-0000-4000-8000-000000000000", cwd)).rejects.toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    await expect(only.client.resume("../../etc/passwd", cwd)).rejects.toMatchObject({
      code: -32002,
      data: expect.objectContaining({ reason: "SESSION_NOT_FOUND" }),
    });
    await expect(only.client.load("00000000-0000-4000-8000-000000000000", "relative/dir")).rejects.toMatchObject({
      code: -32602,
    });
  });
});
