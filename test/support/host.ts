// Test support: a real host subprocess over real stdio, driven by the package's own client, in temp dirs.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient, type PermissionPolicy } from "../../src/client/index.js";

export interface TestHost {
  client: HostClient;
  pid: number;
  /** Everything the host wrote to stderr so far (JSON log lines). */
  stderr(): string;
  dispose(): Promise<number | null>;
}

const dirs: string[] = [];

export function tempDir(prefix = "ash-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export async function startHost(hostArgs: string[] = [], permission: PermissionPolicy = "deny", env?: NodeJS.ProcessEnv): Promise<TestHost> {
  // Session logs go to a temp state dir unless the test names one: never the user's ~/.local/state.
  const stateDir = hostArgs.includes("--state-dir") ? [] : ["--state-dir", tempDir("ash-state-")];
  const client = await HostClient.spawn({ hostArgs: ["--log-level", "debug", ...stateDir, ...hostArgs], stderr: "pipe", permission, ...(env ? { env } : {}) });
  const child = client.child!;
  let log = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (log += chunk));
  return { client, pid: child.pid!, stderr: () => log, dispose: () => client.dispose() };
}

/** Pids of every live process whose parent chain leads to `root` (not including root). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parents.set(Number(name), ppid);
    } catch {
      // the process ended while we looked
    }
  }
  const found: number[] = [];
  for (const pid of parents.keys()) {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) {
      if (p === root) {
        found.push(pid);
        break;
      }
    }
  }
  return found;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Threads of a process (main thread included). */
export function threadCount(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).length;
}
