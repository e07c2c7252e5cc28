// The spawner process and its channels, driven by the real main-thread client and the real worker connection:
// grants, one-time tokens, session binding, and what happens to commands when a connection or a session ends.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { dirname } from "node:path";
import { once } from "node:events";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpawnerClient } from "../../src/spawner/client/spawner-client.js";
import { readJsonLines } from "../../src/protocol/ndjson-lines.js";
import { SpawnerConnection } from "../../workers/tools/spawner-connection.js";
import { isAlive, tempDir } from "../support/host.js";
import { firstProcess, waitFor, waitGone } from "../support/tools.js";

const log = pino({ level: "silent" });
const run = (command: string, background = false) => ({
  command,
  sandbox: "workspace-write" as const,
  timeoutMs: null,
  background,
});

describe("spawner", () => {
  let spawner: SpawnerClient;
  beforeAll(async () => {
    spawner = await SpawnerClient.start(
      { bwrapPath: "/usr/bin/bwrap", network: false, allowFullAccess: false, maxBackgroundTasks: 4, grantWaitMs: 300 },
      log,
    );
  });
  afterAll(async () => {
    await spawner.shutdown();
  });

  it("starts at boot with a working sandbox and a private socket", () => {
    expect(spawner.sandbox).toEqual({ ok: true, detail: "bubblewrap at /usr/bin/bwrap works" });
    expect(spawner.socketPath).toMatch(/\/acp-spawner-[^/]+\/spawner\.sock$/);
  });

  it("a token is good for one connection only, and an unknown token is refused", async () => {
    const grant = spawner.grant("session-one-time", tempDir())!;
    const first = new SpawnerConnection(grant);
    const outcome = await first.run(run("echo ok"));
    expect(outcome).toMatchObject({ kind: "exited", end: { reason: "exited", exitCode: 0 } });

    const second = new SpawnerConnection(grant);
    await expect(second.run(run("echo again"))).rejects.toThrow(
      "the command runner refused this session: unknown or already used token",
    );
    const forged = new SpawnerConnection({ socketPath: grant.socketPath, token: "x".repeat(43) });
    await expect(forged.run(run("echo forged"))).rejects.toThrow("unknown or already used token");
    first.close();
  }, 20_000);

  it("a message that is not valid closes the connection", async () => {
    const socket = createConnection(spawner.socketPath);
    await once(socket, "connect");
    socket.write(
      `${JSON.stringify({ op: "run", id: "1", command: "touch /tmp/should-not-run", sandbox: "none", timeoutMs: null, background: false })}\n`,
    );
    let answer = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (answer += chunk));
    await once(socket, "close");
    expect(JSON.parse(answer)).toEqual({ type: "denied", message: "the first message must be hello" });
  });

  it("full-access runs are refused unless the host allows them", async () => {
    const connection = new SpawnerConnection(spawner.grant("session-no-full", tempDir()));
    const outcome = await connection.run({ ...run("true"), sandbox: "none" });
    expect(outcome).toEqual({
      kind: "error",
      message: "full-access (unsandboxed) commands need a host started with --allow-full-access",
    });
    connection.close();
  });

  it("a closed connection kills its foreground command; the session's background tasks stay, for its next grant", async () => {
    const cwd = tempDir();
    const first = new SpawnerConnection(spawner.grant("session-keeps", cwd));
    const background = await first.run(run("echo bg-output; sleep 2001", true));
    expect(background.kind).toBe("started");
    const taskId = (background as { taskId: string }).taskId;
    const foreground = first.run(run("sleep 2002"));
    const [bgPid, fgPid] = [
      await firstProcess(process.pid, "sleep 2001"),
      await firstProcess(process.pid, "sleep 2002"),
    ];

    first.close();
    expect(await foreground).toMatchObject({ kind: "error" });
    await waitGone([fgPid]);
    expect(isAlive(bgPid)).toBe(true);

    const next = new SpawnerConnection(spawner.grant("session-keeps", cwd));
    const read = await next.read(taskId);
    expect(read).toMatchObject({ type: "task_output", output: "bg-output\n", end: null, droppedBytes: 0 });
    // another session's connection gets the same answer as for an id that never existed
    const stranger = new SpawnerConnection(spawner.grant("session-stranger", tempDir()));
    expect(await stranger.read(taskId)).toMatchObject({ type: "error", message: `no such background task: ${taskId}` });
    expect(await stranger.kill(taskId)).toMatchObject({ type: "error", message: `no such background task: ${taskId}` });
    expect(isAlive(bgPid)).toBe(true);

    expect(await spawner.endSession("session-keeps")).toBe(1);
    expect(isAlive(bgPid)).toBe(false);
    // the session is gone: its last connection is closed, its tasks forgotten
    const after = await next
      .read(taskId)
      .catch((error: Error) => ({ type: "rejected" as const, message: error.message }));
    expect(after.type === "task_output" ? "read after the end" : after.message).toMatch(
      /^(cannot run commands|command aborted): the connection to the command runner closed$/,
    );
    next.close();
    stranger.close();
  }, 20_000);
});

/** Whether every connection the spawner accepted on socketPath has been read to its end (ss: its Recv-Q is 0). */
function nothingUnread(socketPath: string): boolean {
  const output = execFileSync("ss", ["-xHn", "src", socketPath], { encoding: "utf8" }).trim();
  const rows = output === "" ? [] : output.split("\n");
  return rows.length > 0 && rows.every((row) => row.split(/\s+/)[2] === "0");
}

describe("spawner lifetime", () => {
  it("a hello that arrives before its grant waits for it", async () => {
    const spawner = await SpawnerClient.start(
      {
        bwrapPath: "/usr/bin/bwrap",
        network: false,
        allowFullAccess: false,
        maxBackgroundTasks: 4,
        grantWaitMs: 10_000,
      },
      log,
    );
    const token = "t".repeat(40);
    // The hello sent by hand: the test knows when it has been written, and sees when the spawner has read it.
    const early = createConnection(spawner.socketPath);
    await once(early, "connect");
    const replies: unknown[] = [];
    readJsonLines(
      early,
      (value) => replies.push(value),
      () => {},
    );
    await new Promise((resolve) => early.write(`${JSON.stringify({ op: "hello", token })}\n`, resolve));
    // (A reply would mean it did not wait: seen below.)
    await waitFor("the spawner to read the hello", () => replies.length > 0 || nothingUnread(spawner.socketPath));
    // Read, and neither welcomed nor denied: it waits for its grant.
    expect(replies).toEqual([]);
    const cwd = tempDir();
    expect(spawner.grant("session-early", cwd, null, token)).toEqual({ socketPath: spawner.socketPath, token });
    early.write(`${JSON.stringify({ op: "run", id: "1", ...run("pwd") })}\n`);
    await waitFor("the command's end (or a denial)", () =>
      replies.some((reply) => ["exited", "denied"].includes(String((reply as { type?: unknown }).type))),
    );
    expect(replies[0]).toEqual({ type: "welcome" });
    expect(replies.at(-1)).toMatchObject({ type: "exited", id: "1", end: { reason: "exited", exitCode: 0 } });
    early.destroy();
    await spawner.shutdown();
  });

  it("shutdown ends every command and the spawner", async () => {
    const spawner = await SpawnerClient.start(
      { bwrapPath: "/usr/bin/bwrap", network: false, allowFullAccess: true, maxBackgroundTasks: 4 },
      log,
    );
    const connection = new SpawnerConnection(spawner.grant("session-shutdown", tempDir()));
    await connection.run({ ...run("sleep 2003", true), sandbox: "none" });
    await connection.run(run("sleep 2004", true));
    const pids = [await firstProcess(process.pid, "sleep 2003"), await firstProcess(process.pid, "sleep 2004")];
    await spawner.shutdown();
    expect(spawner.alive).toBe(false);
    expect(isAlive(spawner.pid)).toBe(false);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
    connection.close();
  });

  it("a spawner killed outright leaves its directory, and the next one to start sweeps it away", async () => {
    // Spawners started by other test files sweep their runtime parent too (/dev/shm where it has room, whatever
    // TMPDIR says): a private parent keeps this test's directory its own until its own next spawner sweeps it.
    const runtimeParent = tempDir();
    const killed = await SpawnerClient.start(
      { bwrapPath: "/usr/bin/bwrap", network: false, allowFullAccess: false, maxBackgroundTasks: 1, runtimeParent },
      log,
    );
    const dir = dirname(killed.socketPath);
    process.kill(killed.pid, "SIGKILL");
    await waitGone([killed.pid]);
    expect(existsSync(dir)).toBe(true);
    const next = await SpawnerClient.start(
      { bwrapPath: "/usr/bin/bwrap", network: false, allowFullAccess: false, maxBackgroundTasks: 1, runtimeParent },
      log,
    );
    expect(dirname(next.socketPath)).not.toBe(dir);
    expect(dirname(dirname(next.socketPath))).toBe(runtimeParent);
    await waitFor("the stale directory to be swept", () => !existsSync(dir));
    expect(existsSync(dirname(next.socketPath))).toBe(true);
    await next.shutdown();
    expect(existsSync(dirname(next.socketPath))).toBe(false);
  });
});
