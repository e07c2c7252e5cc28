import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isAlive, startHost, tempDir, type TestHost } from "../support/host.js";
import {
  bash,
  deltasOf,
  firstProcess,
  processesRunning,
  resultOf,
  results,
  script,
  taskIdIn,
  tool,
  waitFor,
  waitGone,
} from "../support/tools.js";

const CAP = 4096;

describe("bash: foreground, background, kill, output", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost([
      "--default-mode",
      "auto",
      "--output-cap-bytes",
      String(CAP),
      "--max-background-tasks",
      "2",
    ]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  const session = async () => (await host.client.newSession(tempDir())).sessionId;

  it("runs a foreground command in the workspace: combined output and exit code", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    const result = await host.client.prompt(
      sessionId,
      script(bash("echo out; echo err >&2; pwd; exit 3"), { say: "{{result}}" }),
    );
    expect(result.toolCalls).toHaveLength(1);
    const call = result.toolCalls[0]!;
    expect(call.kind).toBe("execute");
    expect(call.title).toBe("echo out; echo err >&2; pwd; exit 3");
    expect(call.status).toBe("failed");
    expect(resultOf(call)).toBe(`out\nerr\n${cwd}\n[exit code 3]`);
    expect(result.text).toBe(resultOf(call));

    const ok = await host.client.prompt(sessionId, script(bash("printf done")));
    expect(ok.toolCalls[0]!.status).toBe("completed");
    expect(resultOf(ok.toolCalls[0])).toBe("done\n[exit code 0]");
  });

  it("runs a background task, reads its output since the last read, and reports how it ended", async () => {
    const id = await session();
    const started = await host.client.prompt(
      id,
      script(bash("echo one; sleep 0.3; echo two", { run_in_background: true })),
    );
    expect(started.toolCalls[0]!.status).toBe("completed");
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));

    let finished = "";
    await waitFor("the background task to end", async () => {
      const read = await host.client.prompt(id, script(tool("bash_output", { task_id: taskId })));
      finished += `${resultOf(read.toolCalls[0])}\n`;
      return finished.includes("ended:");
    });
    // every read returns only what is new
    expect(finished.match(/one\n/g)).toHaveLength(1);
    expect(finished).toContain("one\n");
    expect(finished).toContain("two\n");
    expect(finished).toContain(`[task ${taskId} ended: exit code 0]`);

    // Nothing new since the last read; killing an ended task says so.
    const again = await host.client.prompt(
      id,
      script(tool("bash_output", { task_id: taskId }), tool("bash_kill", { task_id: taskId })),
    );
    expect(results(again)).toEqual([
      `[task ${taskId} ended: exit code 0]`,
      `task ${taskId} had already ended: exit code 0`,
    ]);
  });

  it("bash_kill ends a background task's whole process group", async () => {
    const id = await session();
    const started = await host.client.prompt(
      id,
      script(bash("sleep 1001 & sleep 1002; wait", { run_in_background: true })),
    );
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));
    const pids = await waitFor("both sleeps", () => {
      const found = [...processesRunning(host.pid, "sleep 1001"), ...processesRunning(host.pid, "sleep 1002")];
      return found.length === 2 ? found : null;
    });
    const running = await host.client.prompt(id, script(tool("bash_output", { task_id: taskId })));
    expect(resultOf(running.toolCalls[0])).toBe(`[task ${taskId} is still running]`);

    const killed = await host.client.prompt(
      id,
      script(tool("bash_kill", { task_id: taskId }), tool("bash_output", { task_id: taskId })),
    );
    expect(results(killed)[0]).toBe(`killed task ${taskId} and its process group`);
    expect(results(killed)[1]).toContain("ended: killed");
    // bash_kill answers once the group is gone
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  it("a foreground command past its timeout_ms is killed with its group", async () => {
    const id = await session();
    const result = await host.client.prompt(id, script(bash("echo before; sleep 1004", { timeout_ms: 300 })));
    const call = result.toolCalls[0]!;
    expect(call.status).toBe("failed");
    expect(resultOf(call)).toBe("before\n[timed out after 300 ms: the command and its process group were killed]");
    expect(processesRunning(host.pid, "sleep 1004")).toEqual([]);
  });

  it("caps what the model gets, streams only deltas, and keeps the full output in a file", async () => {
    const id = await session();
    const result = await host.client.prompt(id, script(bash("seq 1 20000")));
    const full = Array.from({ length: 20000 }, (_, i) => `${i + 1}\n`).join("");
    const call = result.toolCalls[0]!;
    const text = resultOf(call);
    const match =
      /\n\[… (\d+) bytes of output dropped here \((\d+) bytes in all\); the full output is in (\S+) …\]\n/.exec(text);
    expect(match).not.toBeNull();
    const [, dropped, total, file] = match!;
    expect(Number(total)).toBe(full.length);
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text.endsWith("19999\n20000\n[exit code 0]")).toBe(true);
    const kept = text.replace(match![0], "").replace("[exit code 0]", "");
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(CAP);
    expect(Buffer.byteLength(kept) + Number(dropped)).toBe(full.length);
    expect(readFileSync(file!, "utf8")).toBe(full);

    const deltas = deltasOf(result, call.toolCallId);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe(full);
    for (const delta of deltas) expect(delta.length).toBeLessThan(full.length);
  });

  it("streams at most 1 MiB of deltas per call, then says the rest is only in the file", async () => {
    const id = await session();
    const result = await host.client.prompt(id, script(bash("head -c 3000000 /dev/zero | tr '\\0' x")));
    const call = result.toolCalls[0]!;
    const deltas = deltasOf(result, call.toolCallId);
    const notice = deltas.at(-1)!;
    expect(notice).toMatch(
      /^\n\[… output continues; it is no longer streamed for this call; the full output is in \S+ …\]\n$/,
    );
    const streamed = deltas.slice(0, -1).join("");
    expect(streamed).toBe("x".repeat(streamed.length));
    expect(streamed.length).toBeLessThanOrEqual(1024 * 1024);
    expect(streamed.length).toBeGreaterThan(1024 * 1024 - 64 * 1024);
    const file = /the full output is in (\S+) …\]/.exec(resultOf(call))![1]!;
    expect(readFileSync(file, "utf8")).toBe("x".repeat(3_000_000));
    expect(resultOf(call)).toMatch(/\[… \d+ bytes of output dropped here \(3000000 bytes in all\)/);
  });

  it("an output far past what is streamed still gives the model its exact head and tail, and the file all of it", async () => {
    const id = await session();
    const result = await host.client.prompt(id, script(bash("seq 1 1000000")));
    const full = Array.from({ length: 1_000_000 }, (_, i) => `${i + 1}\n`).join("");
    const text = resultOf(result.toolCalls[0]);
    const match =
      /\n\[… (\d+) bytes of output dropped here \((\d+) bytes in all\); the full output is in (\S+) …\]\n/.exec(text);
    expect(match).not.toBeNull();
    const [, dropped, total, file] = match!;
    expect(Number(total)).toBe(full.length);
    const kept = text.replace(match![0], "\0").replace("[exit code 0]", "");
    const [head, tail] = kept.split("\0") as [string, string];
    expect(full.startsWith(head)).toBe(true);
    expect(full.endsWith(tail)).toBe(true);
    expect(tail.endsWith("999999\n1000000\n")).toBe(true);
    expect(Buffer.byteLength(head) + Buffer.byteLength(tail) + Number(dropped)).toBe(full.length);
    expect(readFileSync(file!, "utf8")).toBe(full);
  });

  it("an output cut anywhere in a multi-byte character: whole characters and exact byte counts for the model, every byte in the file", async () => {
    const id = await session();
    // The tail is cut a fixed number of bytes before the end: seven endings move that cut over every byte of a line.
    for (let pad = 0; pad < 7; pad++) {
      const result = await host.client.prompt(id, script(bash(`yes 'aé€' | head -n 500000; printf '%${pad}s' ''`)));
      const full = Buffer.from("aé€\n".repeat(500_000) + " ".repeat(pad));
      const text = resultOf(result.toolCalls[0]);
      const match =
        /\n\[… (\d+) bytes of output dropped here \((\d+) bytes in all\); the full output is in (\S+) …\]\n/.exec(text);
      expect(match).not.toBeNull();
      const [, dropped, total, file] = match!;
      expect(Number(total)).toBe(full.length);
      // An output that does not end in a newline gets one before the exit code.
      const [head, tail] = text
        .replace(match![0], "\0")
        .replace(pad > 0 ? "\n[exit code 0]" : "[exit code 0]", "")
        .split("\0") as [string, string];
      expect(tail).not.toContain("\uFFFD");
      expect(full.subarray(full.length - Buffer.byteLength(tail)).toString()).toBe(tail);
      expect(full.subarray(0, Buffer.byteLength(head)).toString()).toBe(head);
      expect(Buffer.byteLength(head) + Buffer.byteLength(tail) + Number(dropped)).toBe(full.length);
      expect(readFileSync(file!).equals(full)).toBe(true);
    }
  });

  it("each output update carries only what is new", async () => {
    const id = await session();
    const result = await host.client.prompt(id, script(bash("for i in 1 2 3 4; do echo line$i; sleep 0.2; done")));
    const deltas = deltasOf(result, result.toolCalls[0]!.toolCallId);
    // several updates whose concatenation is the output exactly once: none repeats what an earlier one carried
    expect(deltas.length).toBeGreaterThanOrEqual(2);
    expect(deltas.join("")).toBe("line1\nline2\nline3\nline4\n");
    expect(deltas[0]).toBe("line1\n");
  });

  it("at most --max-background-tasks run per session", async () => {
    const id = await session();
    const other = await session();
    const started = await host.client.prompt(
      id,
      script(
        bash("sleep 1000", { run_in_background: true }),
        bash("sleep 1000", { run_in_background: true }),
        bash("sleep 1000", { run_in_background: true }),
      ),
    );
    const [first, , third] = results(started);
    expect(third).toBe("at most 2 background tasks may run per session; end one with bash_kill first");
    expect(started.toolCalls[2]!.status).toBe("failed");
    // the limit is per session
    const elsewhere = await host.client.prompt(other, script(bash("sleep 1000", { run_in_background: true })));
    expect(resultOf(elsewhere.toolCalls[0])).toContain("started background task");
    // ending one makes room
    const after = await host.client.prompt(
      id,
      script(tool("bash_kill", { task_id: taskIdIn(first!) }), bash("true", { run_in_background: true })),
    );
    expect(results(after)[1]).toContain("started background task");
  });

  it("a session cannot read or kill another session's task: same answer as for an id that does not exist", async () => {
    const owner = await session();
    const intruder = await session();
    const started = await host.client.prompt(
      owner,
      script(bash("sleep 1003; echo secret-output", { run_in_background: true })),
    );
    const taskId = taskIdIn(resultOf(started.toolCalls[0]));
    const pid = await firstProcess(host.pid, "sleep 1003");
    const unknownId = "bg-000000000000";

    const probe = await host.client.prompt(
      intruder,
      script(
        tool("bash_output", { task_id: taskId }),
        tool("bash_output", { task_id: unknownId }),
        tool("bash_kill", { task_id: taskId }),
        tool("bash_kill", { task_id: unknownId }),
      ),
    );
    const [readOther, readUnknown, killOther, killUnknown] = results(probe);
    expect(readOther).toBe(`no such background task: ${taskId}`);
    expect(readOther!.replace(taskId, "<id>")).toBe(readUnknown!.replace(unknownId, "<id>"));
    expect(killOther!.replace(taskId, "<id>")).toBe(killUnknown!.replace(unknownId, "<id>"));
    for (const call of probe.toolCalls) expect(call.status).toBe("failed");

    // the owner's task is untouched
    expect(isAlive(pid)).toBe(true);
    const mine = await host.client.prompt(
      owner,
      script(tool("bash_output", { task_id: taskId }), tool("bash_kill", { task_id: taskId })),
    );
    expect(results(mine)[0]).toBe(`[task ${taskId} is still running]`);
    await waitGone([pid]);
  });
});
