// A session's commands share one long-lived sandbox: what that changes must not weaken anything. A new policy (mode)
// takes effect on the next command, a workspace that appears later is masked from sandboxes started before it, a
// command that kills the sandbox's helper only ends its own session's commands, and a closed session leaves no
// sandbox behind.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, startHost, tempDir, type TestHost } from "../support/host.js";
import { bash, cmdline, resultOf, script, taskIdIn, tool, waitFor } from "../support/tools.js";

/** The sandboxes of this session that have a process alive: their exec directories, named after the session. */
function helpersOf(sessionId: string): string[] {
  const dirs = new Set<string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || !isAlive(Number(name))) continue;
    const args = cmdline(Number(name)).split(" ");
    const dir = args.at(-1) ?? "";
    if (args.includes("exec-helper") && dir.includes(`/${sessionId}-`)) dirs.add(dir);
  }
  return [...dirs];
}

describe("a session's sandbox", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "auto", "--state-dir", tempDir("ash-state-")]);
  });
  afterAll(() => host.dispose());

  it("is one for all of a session's commands: a background task is seen by the next command", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const started = await host.client.prompt(sessionId, script(bash("exec sleep 3001", { run_in_background: true })));
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));
    // The task is reported started once its bash has its pid, which may be before that bash has exec'd the sleep.
    await waitFor("the background task in a later command's ps", async () =>
      resultOf((await host.client.prompt(sessionId, script(bash("ps -eo args")))).toolCalls[0]).includes("sleep 3001"),
    );
    expect(helpersOf(sessionId)).toHaveLength(1);
    await host.client.prompt(sessionId, script(tool("bash_kill", { task_id: taskId })));
  });

  it("takes a new mode on the next command, while a command of the old mode runs on in its own sandbox", async () => {
    const ws = tempDir();
    const { sessionId } = await host.client.newSession(ws);
    const started = await host.client.prompt(
      sessionId,
      script(bash("echo begun > begun; exec sleep 3002", { run_in_background: true })),
    );
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));
    await waitFor("the background task to write", () => readdirSync(ws).includes("begun"));
    await host.client.setMode(sessionId, "read-only");
    const refused = await host.client.prompt(sessionId, script(bash("echo x > written-read-only")));
    expect(resultOf(refused.toolCalls[0])).toContain("Read-only file system");
    expect(readdirSync(ws)).not.toContain("written-read-only");
    const still = await host.client.prompt(sessionId, script(tool("bash_output", { task_id: taskId })));
    expect(resultOf(still.toolCalls[0])).toContain("is still running");
    expect(helpersOf(sessionId)).toHaveLength(2);

    await host.client.setMode(sessionId, "auto");
    const written = await host.client.prompt(sessionId, script(bash("echo x > written-again && echo ok")));
    expect(resultOf(written.toolCalls[0])).toContain("ok");
    await host.client.prompt(sessionId, script(tool("bash_kill", { task_id: taskId })));
    // The read-only sandbox had nothing running and was ended when the session went back; the first one ends with its task.
    await waitFor("retired sandboxes to end", () => helpersOf(sessionId).length === 1);
  });

  it("masks a workspace that appeared after it started", async () => {
    const root = tempDir();
    const early = join(root, "early");
    const late = join(root, "late");
    mkdirSync(early);
    const { sessionId } = await host.client.newSession(early, { mode: "read-only" });
    const first = await host.client.prompt(sessionId, script(bash(`ls ${root}`)));
    expect(resultOf(first.toolCalls[0])).toContain("early");
    mkdirSync(late);
    writeFileSync(join(late, "secret"), "late secret\n");
    await host.client.newSession(late);
    const second = await host.client.prompt(sessionId, script(bash(`cat ${late}/secret; ls ${late}`)));
    expect(resultOf(second.toolCalls[0])).not.toContain("late secret");
    expect(resultOf(second.toolCalls[0])).toContain("No such file or directory");
  });

  it("ends with its session's commands when a command kills the helper, and the next command gets a fresh one", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const other = await host.client.newSession(tempDir());
    const otherTask = taskIdIn(
      resultOf(
        (await host.client.prompt(other.sessionId, script(bash("exec sleep 3003", { run_in_background: true }))))
          .toolCalls[0],
      ),
    );
    const killer = await host.client.prompt(sessionId, script(bash("pkill -9 -f exec-helper; sleep 5")));
    expect(killer.toolCalls[0]!.status).toBe("failed");
    const next = await host.client.prompt(sessionId, script(bash("echo alive")));
    expect(resultOf(next.toolCalls[0])).toContain("alive\n[exit code 0]");
    const otherRead = await host.client.prompt(other.sessionId, script(tool("bash_output", { task_id: otherTask })));
    expect(resultOf(otherRead.toolCalls[0])).toContain("is still running");
    await host.client.prompt(other.sessionId, script(tool("bash_kill", { task_id: otherTask })));
  });

  it("is gone with its session", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    await host.client.prompt(sessionId, script(bash("exec sleep 3004", { run_in_background: true })));
    // A background task is reported started once the spawner has it, before its sandbox is necessarily up.
    await waitFor("the sandbox to start", () => helpersOf(sessionId).length === 1);
    await host.client.close(sessionId);
    await waitFor("the sandbox to end", () => helpersOf(sessionId).length === 0);
  });
});

describe("a session's sandbox and the host user's shell files", () => {
  it("never reads ~/.bashrc (its helper's stdin is a socket, which bash takes for rshd's)", async () => {
    const home = tempDir("ash-home-");
    writeFileSync(join(home, ".bashrc"), "echo bashrc-was-read\necho bashrc-was-read >&2\n");
    // read-only: the host's /tmp, where this home is, is visible (workspace-write gives the sandbox a /tmp of its own).
    const host = await startHost(["--default-mode", "read-only", "--state-dir", tempDir("ash-state-")], "deny", {
      ...process.env,
      HOME: home,
    });
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      const result = await host.client.prompt(sessionId, script(bash("echo fine")));
      expect(resultOf(result.toolCalls[0])).toBe("fine\n[exit code 0]");
      expect(host.stderr()).not.toContain("bashrc-was-read");
    } finally {
      await host.dispose();
    }
  });
});
