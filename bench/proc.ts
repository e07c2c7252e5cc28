// Linux /proc readings of the processes under test: RSS, CPU time, threads, descendants.
import { readFileSync, readdirSync } from "node:fs";

/** Resident set size of `pid` (VmRSS), in bytes. */
export function rssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb) * 1024;
}

/** User + system CPU time of `pid`, in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

export function threadCount(pid: number): number {
  return readdirSync(`/proc/${pid}/task`).length;
}

/** Pids of every live process whose parent chain leads to `root` (root excluded). */
export function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
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

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits until `pid` burns at most `maxTicks` CPU ticks per `windowMs` (its threads have settled), or the timeout. */
export async function waitForIdle(pid: number, options: { windowMs?: number; maxTicks?: number; timeoutMs?: number } = {}): Promise<boolean> {
  const { windowMs = 250, maxTicks = 3, timeoutMs = 30_000 } = options;
  const deadline = performance.now() + timeoutMs;
  let before = cpuTicks(pid);
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = cpuTicks(pid);
    if (now - before <= maxTicks) return true;
    before = now;
  }
  return false;
}
