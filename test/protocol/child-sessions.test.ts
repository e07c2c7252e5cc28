// Child sessions (spawn_agent) through real hosts, real workers and real commands, every message checked against the
// SDK's schema: a child is announced with subagent_update before any of its traffic and its updates and permission
// requests reach the parent's connection under its own id (only for a client that understands subagents); its result is
// its final message; its mode is its parent's or narrower and its cwd inside the parent's (refused otherwise, in the
// tool result), written in its header; the depth and the number of children are bounded; cancelling the parent's turn
// cancels the child's (its command ends), closing the parent closes the child, a child's crash is the parent's tool
// error; and children outlive a restart and a kill -9 as sessions of their own, on both stores, reusable by id.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import type { LogHeader } from "../../src/protocol/log/session-log.js";
import type { PermissionPolicy } from "../../src/client/index.js";
import { paths } from "../support/durable.js";
import { hostsPerTest, isAlive, startHost, tempDir, type HostOptions, type TestHost } from "../support/host.js";
import { postgresPerFile, query } from "../support/postgres.js";
import { bash, firstProcess, resultOf, script, waitFor, waitGone } from "../support/tools.js";

const cluster = postgresPerFile();

const hosts = hostsPerTest();

async function start(
  args: string[],
  { permission, ...options }: HostOptions & { permission?: PermissionPolicy } = {},
): Promise<TestHost> {
  const host = await startHost(args, permission, undefined, options);
  hosts.push(host);
  return host;
}

async function stop(host: TestHost, how: "dispose" | "kill"): Promise<void> {
  hosts.splice(hosts.indexOf(host), 1);
  if (how === "kill") await host.kill();
  else await host.dispose();
  expect(host.violations).toEqual([]);
}

const spawnAgent = (input: Record<string, unknown>) => ({ tool: "spawn_agent", input });
const childIdIn = (text: string) => /child session ([0-9a-f-]{36})/.exec(text)?.[1] ?? null;

/** Every notification the client saw, in order. */
function recordAll(host: TestHost): SessionNotification[] {
  const all: SessionNotification[] = [];
  host.client.onAnyUpdate((notification) => all.push(notification));
  return all;
}

describe("child sessions", () => {
  it("a child is announced before its traffic, its updates and permission requests come under its id, and its final message is the result", async () => {
    const asked: RequestPermissionRequest[] = [];
    const host = await start([], {
      permission: (request) => {
        asked.push(request);
        return { outcome: { outcome: "selected", optionId: "allow_once" } };
      },
    });
    const all = recordAll(host);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd, { mode: "ask" });
    const childPrompt = script({ say: "looking" }, bash("echo from the child"), { say: "the child found: {{result}}" });
    const turn = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: childPrompt, title: "Scout" }), { say: "parent got: {{result}}" }),
    );
    expect(turn.stopReason).toBe("end_turn");
    const [child] = turn.children;
    expect(child).toBeDefined();
    const childId = child!.sessionId;
    expect(child).toMatchObject({
      parentSessionId: sessionId,
      title: "Scout",
      cwd,
      state: { state: "idle", stopReason: "end_turn" },
    });
    expect(resultOf(turn.toolCalls[0])).toMatch(
      new RegExp(
        `^the child found: from the child\\n\\[exit code 0\\]\\n\\n\\[child session ${childId}, stop reason end_turn`,
      ),
    );
    expect(turn.text).toContain("parent got: the child found: from the child");

    // The announcement comes before anything of the child's.
    const announced = all.findIndex(
      (n) =>
        n.sessionId === sessionId && n.update.sessionUpdate === "subagent_update" && n.update.sessionId === childId,
    );
    const firstOfChild = all.findIndex((n) => n.sessionId === childId);
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(firstOfChild).toBeGreaterThan(announced);
    const childUpdates = all.filter((n) => n.sessionId === childId).map((n) => n.update.sessionUpdate);
    expect(childUpdates).toEqual([
      "session_info_update",
      "agent_message_chunk",
      "tool_call",
      "tool_call_update",
      "tool_call_update",
      "tool_call_update",
      "agent_message_chunk",
    ]);
    expect(child!.updates.map((update) => update.sessionUpdate)).toEqual(childUpdates);
    // The child took its parent's mode (ask): its command asked this client, under the child's id.
    expect(asked.map((request) => [request.sessionId, request.toolCall.title])).toEqual([
      [childId, "echo from the child"],
    ]);

    // A session like any other: listed with its parent, its mode, cwd and parent in its header.
    const listed = (await host.client.list()).sessions.find((session) => session.sessionId === childId);
    expect(listed?._meta?.["acp-session-host"]).toMatchObject({ parentSessionId: sessionId, depth: 1 });
    expect(await host.client.status(childId)).toBe("open");
  });

  it("without the subagent capability: no announcement, none of the child's traffic, its permission requests refused; the result still comes", async () => {
    const asked: RequestPermissionRequest[] = [];
    const host = await start([], {
      subagents: false,
      permission: (request) => (asked.push(request), { outcome: { outcome: "selected", optionId: "allow_once" } }),
    });
    const all = recordAll(host);
    const { sessionId } = await host.client.newSession(tempDir(), { mode: "ask" });
    const turn = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: script(bash("echo hi"), { say: "got {{result}}" }) }), { say: "{{result}}" }),
    );
    expect(all.every((n) => n.sessionId === sessionId)).toBe(true);
    expect(all.some((n) => n.update.sessionUpdate === "subagent_update")).toBe(false);
    expect(asked).toEqual([]);
    expect(turn.text).toMatch(/^got the user cancelled this tool call\n\n\[child session /);
  });

  it("a wider mode is refused in the tool result, a narrower one given; set_mode cannot widen a child past the mode it was made with", async () => {
    const host = await start(["--default-mode", "auto"]);
    const { sessionId } = await host.client.newSession(tempDir());
    await host.client.setMode(sessionId, "ask");
    const wide = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: "hi", mode: "auto" }), { say: "{{result}}" }),
    );
    expect(wide.text).toBe(
      "spawn_agent refused: mode auto is wider than this session's mode ask: a child's mode is its parent's or narrower",
    );
    expect(wide.toolCalls[0]!.status).toBe("failed");
    expect(wide.children).toEqual([]);
    expect((await host.client.list()).sessions).toHaveLength(1);

    const narrow = await host.client.prompt(
      sessionId,
      script(
        spawnAgent({
          prompt: script({ tool: "write_file", input: { path: "x.txt", content: "x" } }, { say: "{{result}}" }),
          mode: "read-only",
        }),
        { say: "{{result}}" },
      ),
    );
    expect(narrow.text).toMatch(/^write_file is refused in read-only mode/);
    const childId = narrow.children[0]!.sessionId;
    expect(
      await host.client.setMode(childId, "auto").then(
        () => null,
        (error: { code?: number }) => error,
      ),
    ).toMatchObject({ code: -32602, data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "modeId" }) });
    await host.client.setMode(childId, "read-only");
  });

  it("the cwd is the parent's or a directory inside it; a path outside is refused", async () => {
    const host = await start(["--default-mode", "auto"]);
    const cwd = tempDir();
    mkdirSync(join(cwd, "sub"));
    const { sessionId } = await host.client.newSession(cwd);
    const inside = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: script(bash("pwd"), { say: "{{result}}" }), cwd: "sub" }), { say: "{{result}}" }),
    );
    expect(inside.text.startsWith(`${join(cwd, "sub")}\n`)).toBe(true);
    expect(inside.children[0]!.cwd).toBe(join(cwd, "sub"));
    for (const outside of ["..", tempDir(), "missing"]) {
      const refused = await host.client.prompt(
        sessionId,
        script(spawnAgent({ prompt: "hi", cwd: outside }), { say: "{{result}}" }),
      );
      expect(refused.text).toMatch(
        /^spawn_agent refused: cwd .* (is not this session's working directory|is not an existing directory)/,
      );
    }
  });

  it("--max-delegation-depth and --max-children bound the tree; a child is prompted again by its id", async () => {
    const host = await start(["--max-delegation-depth", "2", "--max-children", "1"]);
    const { sessionId } = await host.client.newSession(tempDir());
    const deepest = script(spawnAgent({ prompt: "too deep" }), { say: "{{result}}" });
    const middle = script(spawnAgent({ prompt: deepest }), { say: "{{result}}" });
    const turn = await host.client.prompt(sessionId, script(spawnAgent({ prompt: middle }), { say: "{{result}}" }));
    expect(turn.text).toMatch(
      /^spawn_agent refused: this session is a child 2 deep, and --max-delegation-depth 2 allows no child below it/,
    );
    const childId = childIdIn(turn.text.split("\n\n").at(-1)!)!;
    expect(turn.children.map((child) => child.sessionId)).toEqual([childId]);
    const grandchild = host.client.children().find((child) => child.parentSessionId === childId)!;
    expect(
      (await host.client.list()).sessions.find((session) => session.sessionId === grandchild.sessionId)?._meta?.[
        "acp-session-host"
      ],
    ).toMatchObject({ parentSessionId: childId, depth: 2 });

    const second = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: "another" }), { say: "{{result}}" }),
    );
    expect(second.text).toBe(
      'spawn_agent refused: this session has 1 child sessions open (--max-children 1): prompt one of them again with "session" instead',
    );
    const again = await host.client.prompt(
      sessionId,
      script(spawnAgent({ session: childId, prompt: "once more" }), { say: "{{result}}" }),
    );
    expect(again.text).toMatch(new RegExp(`^You said: once more\\n\\n\\[child session ${childId},`));
    const stranger = (await host.client.newSession(tempDir())).sessionId;
    const notMine = await host.client.prompt(
      sessionId,
      script(spawnAgent({ session: stranger, prompt: "hi" }), { say: "{{result}}" }),
    );
    expect(notMine.text).toBe(`spawn_agent refused: ${stranger} is not a child session of this session`);
  });

  it("children asked for in one answer work at once, each in its own worker", async () => {
    const host = await start(["--default-mode", "auto"]);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    // Each child waits for a file the test writes only once all three are running: one after another, they never would.
    const child = (n: number) =>
      spawnAgent({
        prompt: script(bash(`while [ ! -f go ]; do sleep 0.05; done; echo child ${n}`), { say: "{{result}}" }),
      });
    const running: string[] = [];
    const turn = host.client.prompt(sessionId, script({ tools: [child(1), child(2), child(3)] }, { say: "all done" }), {
      onUpdate: (update) => {
        if (update.sessionUpdate === "subagent_update" && update.state?.state === "running")
          running.push(update.sessionId);
      },
    });
    await waitFor("three children running at once", () => running.length === 3);
    writeFileSync(join(cwd, "go"), "");
    const done = await turn;
    expect(done.text).toBe("all done");
    expect(done.children.map((c) => c.sessionId).sort()).toEqual([...running].sort());
    expect(done.toolCalls.map((call) => resultOf(call).split("\n")[0]).sort()).toEqual([
      "child 1",
      "child 2",
      "child 3",
    ]);
    expect((await host.client.stats()).threads.mostWorkers).toBeGreaterThanOrEqual(4);
  });

  it("cancelling the parent's turn cancels the child's: its command ends, both turns end cancelled", async () => {
    const host = await start(["--default-mode", "auto"]);
    const { sessionId } = await host.client.newSession(tempDir());
    const turn = host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: script(bash("sleep 1201")) }), { say: "not reached" }),
    );
    const pid = await firstProcess(host.pid, "sleep 1201");
    const child = host.client.children(sessionId)[0]!;
    await host.client.cancel(sessionId);
    const ended = await turn;
    expect(ended.stopReason).toBe("cancelled");
    await waitGone([pid]);
    await waitFor("the child to be idle", () => child.state?.state === "idle");
    expect(child.state).toEqual({ state: "idle", stopReason: "cancelled" });
    // Both sessions go on.
    expect((await host.client.prompt(sessionId, "after")).text).toBe("You said: after");
  });

  it("closing the parent closes its child mid-command, and a child's crash is the parent's tool error, not the parent's", async () => {
    const host = await start(["--default-mode", "auto", "--allow-fault-injection", "--warm-workers", "0"]);
    const { sessionId } = await host.client.newSession(tempDir());
    const turn = host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: script(bash("sleep 1202")) }), { say: "not reached" }),
    );
    const pid = await firstProcess(host.pid, "sleep 1202");
    const childId = host.client.children(sessionId)[0]!.sessionId;
    await host.client.close(sessionId);
    expect((await turn).stopReason).toBe("cancelled");
    await waitGone([pid]);
    expect(await host.client.status(childId)).toBe("saved");
    await waitFor("every worker to end", async () => (await host.client.stats()).threads.workers === 0);

    const parent = (await host.client.newSession(tempDir())).sessionId;
    const crashed = await host.client.prompt(
      parent,
      script(spawnAgent({ prompt: script({ crash: "child fell over" }) }), { say: "the parent goes on" }),
    );
    expect(crashed.stopReason).toBe("end_turn");
    expect(crashed.toolCalls[0]!.status).toBe("failed");
    expect(resultOf(crashed.toolCalls[0])).toMatch(
      /^child session [0-9a-f-]{36} failed: session worker died: child fell over/,
    );
    expect(crashed.text).toBe("the parent goes on");
  });

  it("counts against --max-sessions like any session", async () => {
    const host = await start(["--max-sessions", "1"]);
    const { sessionId } = await host.client.newSession(tempDir());
    const turn = await host.client.prompt(sessionId, script(spawnAgent({ prompt: "hi" }), { say: "{{result}}" }));
    expect(turn.text).toBe("spawn_agent failed: host at capacity: 1 sessions");
  });
});

const STORES = [
  {
    name: "state dir",
    args: async () => ["--state-dir", tempDir("ash-state-")],
    header: async (args: string[], sessionId: string) =>
      JSON.parse(readFileSync(paths(args[1]!, sessionId).log, "utf8").split("\n")[0]!) as LogHeader,
  },
  {
    name: "PostgreSQL",
    args: async () => ["--store", await cluster.database(), "--lease-ms", "1000", "--state-dir", tempDir("ash-state-")],
    header: async (args: string[], sessionId: string) =>
      JSON.parse(
        (await query<{ header: string }>(args[1]!, "SELECT header FROM ash_sessions WHERE id = $1", [sessionId]))[0]!
          .header,
      ) as LogHeader,
  },
];

describe.each(STORES)("children across a kill -9 on the $name", (store) => {
  it("a child killed mid-command keeps the mode, cwd and parent of its header; it is listed, loads, and its parent prompts it again by id", async () => {
    const args = await store.args();
    const host = await start([...args, "--default-mode", "auto"]);
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const first = await host.client.prompt(
      sessionId,
      script(spawnAgent({ prompt: "first errand", mode: "read-only" }), { say: "{{result}}" }),
    );
    const childId = first.children[0]!.sessionId;
    expect(await store.header(args, childId)).toMatchObject({
      sessionId: childId,
      mode: "read-only",
      cwd,
      parent: { sessionId, depth: 1 },
    });
    const seen: SessionUpdate[] = [];
    void host.client
      .prompt(sessionId, script(spawnAgent({ session: childId, prompt: script(bash("sleep 1203")) })))
      .catch(() => {});
    host.client.onSessionUpdate(childId, (update) => seen.push(update));
    await firstProcess(host.pid, "sleep 1203");
    await stop(host, "kill");

    const again = await start([...args, "--default-mode", "auto"]);
    const listed = (await again.client.list()).sessions.find((session) => session.sessionId === childId);
    expect(listed?._meta?.["acp-session-host"]).toMatchObject({ parentSessionId: sessionId, depth: 1 });
    // Loaded by a client, the child replays its own history, the interrupted turn closed; its mode is the header's.
    const loaded = await again.client.load(childId, cwd);
    expect(loaded.filter((update) => update.sessionUpdate === "user_message_chunk").length).toBe(2);
    await again.client.close(childId);
    await again.client.resume(sessionId, cwd);
    const reused = await again.client.prompt(
      sessionId,
      script(
        spawnAgent({
          session: childId,
          prompt: script({ tool: "write_file", input: { path: "w.txt", content: "w" } }, { say: "{{result}}" }),
        }),
        { say: "{{result}}" },
      ),
    );
    expect(reused.text).toMatch(
      new RegExp(`^write_file is refused in read-only mode.*\\n\\n\\[child session ${childId},`, "s"),
    );
    const wider = await again.client.prompt(
      sessionId,
      script(spawnAgent({ session: childId, prompt: "hi", mode: "auto" }), { say: "{{result}}" }),
    );
    expect(wider.text).toBe(
      `spawn_agent refused: mode auto is wider than the mode read-only child session ${childId} was made with`,
    );
    // Forkable like any session: the fork takes the child's mode, and is a session of the client's own.
    const fork = await again.client.fork(childId, cwd);
    expect(fork.modes?.currentModeId).toBe("read-only");
    expect(
      (await again.client.list()).sessions.find((session) => session.sessionId === fork.sessionId)?._meta?.[
        "acp-session-host"
      ],
    ).toEqual(expect.not.objectContaining({ parentSessionId: expect.anything() }));
    expect(isAlive(again.pid)).toBe(true);
  });
});
