// Runs the teardown floor (bench/processes/teardown-floor.ts) once, timed as the teardown scenario times the host:
// from its SIGTERM to its exit, and what was under it still in the process table at that moment.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { recordIncident } from "./incidents.js";
import { descendantIdentities, stillThere } from "./proc.js";

const FLOOR = fileURLToPath(new URL("../processes/teardown-floor.js", import.meta.url));

export interface FloorRun {
  /** NaN when the floor did not exit 0 (an incident then says so). */
  ms: number;
  /** Processes under the floor when it was signalled. */
  processes: number;
  /** Of those, still in the process table when its exit is seen. */
  left: number;
  /** Why the floor's processes are plain `sleep` groups rather than sandboxes; null when they are sandboxes. */
  plainOnly: string | null;
  code: number | null;
}

interface Ready {
  processes: number;
  plainOnly: string | null;
}

export async function runTeardownFloor(
  threads: number,
  processes: number,
  sandboxes: number,
  cwd: string,
): Promise<FloorRun> {
  const child = spawn(process.execPath, [FLOOR, String(threads), String(processes), String(sandboxes)], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
  const early = once(child, "exit");
  const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  try {
    const ready = await new Promise<Ready>((resolve, reject) => {
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        out += chunk;
        const line = /^ready (.*)\n/m.exec(out)?.[1];
        if (line !== undefined) resolve(JSON.parse(line) as Ready);
      });
      void early.then(
        ([code]) => reject(new Error(`the teardown floor exited ${String(code)} before it was ready: ${stderr}`)),
        reject,
      );
    });
    const before = descendantIdentities(child.pid!);
    // As the scenario times the host: the exit handler lists what is left before the time is read.
    const exited = new Promise<[number | null, string[]]>((resolve) =>
      child.once("exit", (code) => resolve([code, stillThere(before)])),
    );
    const started = performance.now();
    child.kill("SIGTERM");
    const [code, left] = await exited;
    const ms = performance.now() - started;
    if (code !== 0) recordIncident(`the teardown floor exited ${String(code)} on SIGTERM: ${stderr.slice(-200)}`);
    return {
      ms: code === 0 ? ms : Number.NaN,
      processes: before.length,
      left: left.length,
      plainOnly: ready.plainOnly,
      code,
    };
  } finally {
    clearTimeout(killer);
    child.kill("SIGKILL");
  }
}
