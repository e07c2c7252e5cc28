// Every command runs in a process group of its own, and the group is gone after cancel, after its session ends,
// after host teardown, and after the host is SIGKILLed. Pids are checked in /proc.
import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, startHost, tempDir, type TestHost } from "../support/host.js";
import {
  bash,
  firstProcess,
  processesRunning,
  resultOf,
  script,
  spawnerOf,
  taskIdIn,
  tool,
  waitFor,
  waitGone,
} from "../support/tools.js";

describe("process groups end with their command and session", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "auto"]);
  });
  afterAll(() => host.dispose());

  it("cancel ends the foreground command's whole group before the turn ends", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const turn = host.client.prompt(sessionId, script(bash("sleep 1001 & sleep 1000; wait"), { say: "not reached" }));
    const pids = await waitFor("both sleeps", () => {
      const found = [...processesRunning(host.pid, "sleep 1000"), ...processesRunning(host.pid, "sleep 1001")];
      return found.length === 2 ? found : null;
    });
    await host.client.cancel(sessionId);
    const result = await turn;
    expect(result.stopReason).toBe("cancelled");
    expect(result.text).toBe("");
    expect(result.toolCalls[0]!.status).toBe("failed");
    expect(resultOf(result.toolCalls[0])).toContain("killed");
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    // the session goes on
    expect(resultOf((await host.client.prompt(sessionId, script(bash("echo again")))).toolCalls[0])).toBe(
      "again\n[exit code 0]",
    );
  });

  it("session/close ends that session's background tasks and no other session's", async () => {
    const closing = (await host.client.newSession(tempDir())).sessionId;
    const staying = (await host.client.newSession(tempDir())).sessionId;
    await host.client.prompt(closing, script(bash("sleep 1050", { run_in_background: true })));
    const started = await host.client.prompt(staying, script(bash("sleep 1051", { run_in_background: true })));
    const [gone, kept] = [await firstProcess(host.pid, "sleep 1050"), await firstProcess(host.pid, "sleep 1051")];
    await host.client.close(closing);
    expect(isAlive(gone)).toBe(false);
    expect(isAlive(kept)).toBe(true);
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));
    const read = await host.client.prompt(staying, script(tool("bash_output", { task_id: taskId })));
    expect(resultOf(read.toolCalls[0])).toBe(`[task ${taskId} is still running]`);
  });
});

describe("with a host of their own", () => {
  it("background tasks outlive a hard-cancelled worker and stay readable by the session's next worker", async () => {
    const host = await startHost(["--default-mode", "auto", "--allow-fault-injection", "--cancel-grace-ms", "300"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      let taskId = "";
      const turn = host.client.prompt(
        sessionId,
        script(bash("echo started; sleep 1010", { run_in_background: true }), { spin_ms: 60_000 }),
        {
          onUpdate: (update) => {
            if (update.sessionUpdate === "tool_call_update" && update.rawOutput)
              taskId = taskIdIn(JSON.stringify(update.rawOutput));
          },
        },
      );
      const pid = await firstProcess(host.pid, "sleep 1010");
      await waitFor("the task id", () => taskId);
      await host.client.cancel(sessionId);
      expect((await turn).stopReason).toBe("cancelled");
      expect(host.stderr()).toContain("terminating its worker");

      expect(isAlive(pid)).toBe(true);
      const read = await host.client.prompt(sessionId, script(tool("bash_output", { task_id: taskId })));
      expect(resultOf(read.toolCalls[0])).toBe(`started\n[task ${taskId} is still running]`);
      await host.client.prompt(sessionId, script(tool("bash_kill", { task_id: taskId })));
      expect(isAlive(pid)).toBe(false);
    } finally {
      await host.dispose();
    }
  });

  it("closing sessions at teardown ends their background tasks; teardown ends foreground commands; nothing is left", async () => {
    const host = await startHost(["--default-mode", "auto"]);
    const background = (await host.client.newSession(tempDir())).sessionId;
    const foreground = (await host.client.newSession(tempDir())).sessionId;
    await host.client.prompt(background, script(bash("sleep 1020", { run_in_background: true })));
    const turn = host.client.prompt(foreground, script(bash("sleep 1021")));
    const pids = await waitFor("both sleeps", () => {
      const found = [...processesRunning(host.pid, "sleep 1020"), ...processesRunning(host.pid, "sleep 1021")];
      return found.length === 2 ? found : null;
    });
    const spawner = spawnerOf(host.pid);
    expect(spawner).toHaveLength(1);

    const exited = once(host.child, "exit") as Promise<[number | null]>;
    process.kill(host.pid, "SIGTERM");
    expect((await turn).stopReason).toBe("cancelled");
    expect((await exited)[0]).toBe(0);
    for (const pid of [...pids, ...spawner]) expect(isAlive(pid)).toBe(false);
    // the background task was ended with its session's commands: by the session's close or by the spawner's
    // shutdown, which ends every session's beside the workers' end (whichever reaches it first)
    expect(host.stderr()).toMatch(new RegExp(`"sessionId":"${background}","killed":1,"msg":"session commands ended"`));
  });

  it("a SIGKILLed host leaves no command and no spawner behind", async () => {
    const host = await startHost(["--default-mode", "auto"]);
    const { sessionId } = await host.client.newSession(tempDir());
    await host.client.prompt(sessionId, script(bash("sleep 1030", { run_in_background: true })));
    const other = (await host.client.newSession(tempDir())).sessionId;
    const turn = host.client.prompt(other, script(bash("sleep 1031")));
    turn.catch(() => {});
    const pids = await waitFor("both sleeps", () => {
      const found = [...processesRunning(host.pid, "sleep 1030"), ...processesRunning(host.pid, "sleep 1031")];
      return found.length === 2 ? found : null;
    });
    const spawner = spawnerOf(host.pid);
    expect(spawner).toHaveLength(1);

    const exited = once(host.child, "exit");
    process.kill(host.pid, "SIGKILL");
    await exited;
    await waitGone([...pids, ...spawner], "the commands and the spawner of a SIGKILLed host to end");
    expect(host.stderr()).toContain("host gone");
    await host.dispose();
  });

  it("a background task that died with a killed spawner is read and killed as gone, naming the restart and its output", async () => {
    const host = await startHost(["--default-mode", "auto"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      const started = await host.client.prompt(
        sessionId,
        script(bash("echo before-the-restart; sleep 1045", { run_in_background: true })),
      );
      const taskId = taskIdIn(resultOf(started.toolCalls[0]));
      const pid = await firstProcess(host.pid, "sleep 1045");
      await waitFor("its first output", async () => {
        const read = await host.client.prompt(sessionId, script(tool("bash_output", { task_id: taskId })));
        return resultOf(read.toolCalls[0]).includes("before-the-restart");
      });
      const [spawner] = spawnerOf(host.pid);
      process.kill(spawner!, "SIGKILL");
      await waitGone([pid], "the background sleep to die with its spawner");
      await waitFor("the new spawner", () => host.stderr().includes("spawner restarted"));

      const after = await host.client.prompt(
        sessionId,
        script(tool("bash_output", { task_id: taskId }), tool("bash_kill", { task_id: taskId })),
      );
      for (const call of after.toolCalls) {
        expect(call.status).toBe("failed");
        expect(resultOf(call)).toMatch(
          new RegExp(
            `^background task ${taskId} is gone: the command runner that started it exited .* and the task ended with it\\. Its output until then is in \\S+${taskId}\\.log\\.$`,
          ),
        );
      }
      // An id that was never given out is still just unknown.
      const unknown = await host.client.prompt(sessionId, script(tool("bash_output", { task_id: "bg-000000000000" })));
      expect(resultOf(unknown.toolCalls[0])).toBe("no such background task: bg-000000000000");
    } finally {
      await host.dispose();
    }
  });

  it("if the spawner itself is killed, its commands die with it and fail clearly; a new spawner runs the next ones", async () => {
    const host = await startHost(["--default-mode", "auto"]);
    try {
      const { sessionId } = await host.client.newSession(tempDir());
      const turn = host.client.prompt(sessionId, script(bash("sleep 1040")));
      const pid = await firstProcess(host.pid, "sleep 1040");
      const [spawner] = spawnerOf(host.pid);
      process.kill(spawner!, "SIGKILL");
      const result = await turn;
      expect(result.toolCalls[0]!.status).toBe("failed");
      expect(resultOf(result.toolCalls[0])).toBe("command aborted: the connection to the command runner closed");
      await waitGone([pid], "the sandboxed sleep to die with its spawner (bwrap --die-with-parent)");
      await waitFor("the host to notice", () =>
        host.stderr().includes("spawner exited: commands in flight failed; starting a new one"),
      );
      await waitFor("the new spawner", () => host.stderr().includes("spawner restarted"));
      expect(spawnerOf(host.pid)).not.toContain(spawner);

      // The session's live worker got a fresh grant; a new session's worker gets one from the new spawner.
      const again = await host.client.prompt(sessionId, script(bash("echo again")));
      expect(again.toolCalls[0]!.status).toBe("completed");
      expect(resultOf(again.toolCalls[0])).toContain("again");
      const fresh = (await host.client.newSession(tempDir())).sessionId;
      const other = await host.client.prompt(fresh, script(bash("echo fresh")));
      expect(resultOf(other.toolCalls[0])).toContain("fresh");
    } finally {
      await host.dispose();
    }
  });
});
