// The spawner process: started by the host at boot, while the host is still small, it spawns, supervises and reaps
// every session command. It listens for session workers on a unix socket in a private directory and takes orders from
// the host on stdin. When stdin closes (the host exited or was killed, even by SIGKILL) it kills every command's
// process group and exits: no command outlives its host.
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { jsonLine, readJsonLines } from "../protocol/ndjson-lines.js";
import { ControlRequest, SpawnerOptions, type ControlMessage } from "../protocol/spawner-control.js";
import { spawnerLog, type SpawnerLog } from "./log.js";
import { runtimeParent } from "./runtime-parent.js";
import { probeSandbox } from "./sandbox.js";
import { Spawner } from "./spawner.js";
import { systemView } from "./system-view.js";

/** Errors before the options are read (they name the level) are written at the default one. */
let log: SpawnerLog = spawnerLog("info");

async function main(): Promise<void> {
  const options = SpawnerOptions.parse(JSON.parse(process.argv[2] ?? "null"));
  log = spawnerLog(options.logLevel);
  const parent = await runtimeParent(options.runtimeParent);
  const runtimeDir = await mkdtemp(join(parent, RUNTIME_PREFIX)); // 0700
  await writeFile(join(runtimeDir, "pid"), String(process.pid));
  const socketPath = join(runtimeDir, "spawner.sock");
  const outputRoot = join(runtimeDir, "output");
  const system = options.confined ? await systemView() : undefined;
  // Run from / : a runtime dir under /dev is not there in the sandbox's fresh /dev. Confined, the workspace is bound,
  // and / would be all of the host's.
  const sandbox = await probeSandbox(options.bwrapPath, system ? runtimeDir : "/", system);
  const spawner = new Spawner(options, runtimeDir, outputRoot, sandbox, log, system);
  const server = createServer((socket) => spawner.accept(socket));

  let exiting: Promise<never> | null = null;
  const exit = (reason: string): Promise<never> => {
    exiting ??= (async () => {
      log("info", "spawner ending every command", { reason });
      server.close();
      await spawner.shutdown().catch((error: unknown) => log("error", "shutdown failed", { err: String(error) }));
      await rm(runtimeDir, { recursive: true, force: true }).catch(() => {});
      process.exit(0);
    })();
    return exiting;
  };
  process.on("uncaughtException", (error) => {
    log("error", "spawner failed: killing every command", { err: error.stack ?? String(error) });
    spawner.killAllNow();
    rmSync(runtimeDir, { recursive: true, force: true });
    process.exit(1);
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void exit(signal));

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, resolve);
  });
  await chmod(socketPath, 0o600);

  const send = (message: ControlMessage) => process.stdout.write(jsonLine(message));
  process.stdout.on("error", () => void exit("host gone (stdout)"));
  readJsonLines(
    process.stdin,
    (value) => {
      const parsed = ControlRequest.safeParse(value);
      if (!parsed.success) {
        log("error", "invalid control message dropped", { issue: parsed.error.issues[0]?.message });
        return;
      }
      const request = parsed.data;
      switch (request.op) {
        case "grant":
          spawner.grant(request);
          return;
        case "workspace":
          spawner.workspace(request);
          return;
        case "end_session":
          void spawner.endSession(request.sessionId).then((killed) => send({ type: "ended", id: request.id, killed }));
          return;
        case "shutdown":
          void spawner.shutdown().then(() => {
            send({ type: "ended", id: request.id, killed: 0 });
            void exit("host shutdown");
          });
          return;
      }
    },
    (error) => log("error", "control channel unreadable", { err: error.message }),
  );
  process.stdin.once("end", () => void exit("host gone (stdin closed)"));
  process.stdin.once("close", () => void exit("host gone (stdin closed)"));
  send({ type: "ready", socketPath, outputRoot, sandbox });
  void sweepStale(parent, runtimeDir);
}

const RUNTIME_PREFIX = "acp-spawner-";

/** Removes the directories of spawners that died without cleaning up (SIGKILL): their pid is gone. */
async function sweepStale(parent: string, mine: string): Promise<void> {
  const names = await readdir(parent).catch(() => [] as string[]);
  for (const name of names) {
    const dir = join(parent, name);
    if (!name.startsWith(RUNTIME_PREFIX) || dir === mine) continue;
    const pid = Number(await readFile(join(dir, "pid"), "utf8").catch(() => ""));
    if (!Number.isInteger(pid) || pid <= 0 || alive(pid)) continue;
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

main().catch((error: unknown) => {
  log("error", "spawner could not start", { err: (error as Error).stack ?? String(error) });
  process.exit(1);
});
