// The spawner's stdio process kind (what MCP stdio servers run as), driven by the real main-thread client and the real
// worker connection: stdin and stdout streamed both ways, the given env over the base and nothing of the spawner's,
// stderr's tail on exit, and the process group ended by close_stdio, by the connection's end and by the session's.
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SpawnerClient } from "../../src/spawner/client/spawner-client.js";
import { SpawnerConnection, type StdioExit, type StdioProcess } from "../../workers/tools/spawner-connection.js";
import { tempDir } from "../support/host.js";
import { firstProcess, waitFor, waitGone } from "../support/tools.js";

const log = pino({ level: "silent" });

interface Opened {
  process: StdioProcess;
  stdout(): string;
  exit(): StdioExit | null;
}

async function open(connection: SpawnerConnection, script: string, env: Record<string, string> = {}): Promise<Opened> {
  let out = "";
  let ended: StdioExit | null = null;
  const outcome = await connection.openStdio(
    { command: "/bin/bash", args: ["-c", script], env, sandbox: "workspace-write" },
    { onStdout: (data) => (out += data), onExit: (exit) => (ended = exit) },
  );
  if (outcome.kind !== "started") throw new Error(outcome.message);
  return { process: outcome.process, stdout: () => out, exit: () => ended };
}

describe("spawner stdio processes", () => {
  let spawner: SpawnerClient;
  beforeAll(async () => {
    process.env.SPAWNER_TEST_SECRET = "not-for-children";
    spawner = await SpawnerClient.start(
      { bwrapPath: "/usr/bin/bwrap", network: false, allowFullAccess: false, maxBackgroundTasks: 4, grantWaitMs: 300 },
      log,
    );
  });
  afterAll(async () => {
    await spawner.shutdown();
    delete process.env.SPAWNER_TEST_SECRET;
  });

  it("streams stdin to stdout, with the given env and not the spawner's; stderr's tail comes with the exit", async () => {
    const connection = new SpawnerConnection(spawner.grant("stdio-echo", tempDir()));
    const echo = await open(
      connection,
      'echo "given=$GIVEN secret=${SPAWNER_TEST_SECRET:-none}"; while read -r line; do echo "got $line"; [ "$line" = bye ] && break; done; echo "last words" >&2; exit 7',
      { GIVEN: "yes" },
    );
    await waitFor("the greeting", () => echo.stdout().includes("given=yes secret=none\n"));
    echo.process.write("one\n");
    await waitFor("one echoed", () => echo.stdout().includes("got one\n"));
    echo.process.write("bye\n");
    const exit = await waitFor("the exit", () => echo.exit());
    expect(exit.end).toMatchObject({ reason: "exited", exitCode: 7 });
    expect(exit.stderrTail.endsWith("last words\n")).toBe(true);
    expect(echo.stdout()).not.toContain("last words");
    connection.close();
  });

  it("close_stdio, the connection's end and the session's end each end the whole process group", async () => {
    const connection = new SpawnerConnection(spawner.grant("stdio-ends", tempDir()));
    const closed = await open(connection, "sleep 3101 & sleep 3102; wait");
    const [child, leader] = [
      await firstProcess(process.pid, "sleep 3101"),
      await firstProcess(process.pid, "sleep 3102"),
    ];
    closed.process.close();
    expect((await waitFor("its exit", () => closed.exit())).end?.reason).toBe("killed");
    await waitGone([child, leader]);

    await open(connection, "sleep 3103");
    const byConnection = await firstProcess(process.pid, "sleep 3103");
    connection.close();
    await waitGone([byConnection]);

    const next = new SpawnerConnection(spawner.grant("stdio-ends", tempDir()));
    await open(next, "sleep 3104");
    const bySession = await firstProcess(process.pid, "sleep 3104");
    expect(await spawner.endSession("stdio-ends")).toBe(1);
    await waitGone([bySession]);
  });

  it("a program that does not exist fails to start inside the sandbox, and says why", async () => {
    const connection = new SpawnerConnection(spawner.grant("stdio-missing", tempDir()));
    let ended: StdioExit | null = null;
    const outcome = await connection.openStdio(
      { command: "/no/such/program", args: [], env: {}, sandbox: "read-only" },
      { onStdout: () => {}, onExit: (exit) => (ended = exit) },
    );
    expect(outcome.kind).toBe("started");
    const exit = await waitFor("the exit", () => ended);
    expect(exit.end?.reason).toBe("sandbox_failed");
    expect(exit.end?.detail).toContain("/no/such/program");
    connection.close();
  });
});
