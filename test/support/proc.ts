// Linux /proc readings shared by the tests and the benchmark: threads, descendants, liveness.
import { readFileSync, readdirSync } from "node:fs";

/** Threads of a process (main thread included). */
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

/**
 * A process's identity: its pid and its start time, so a pid reused later is not taken for it; null once it has left
 * the process table. A zombie counts: one that the host's processes left to pid 1 stays there until pid 1 reaps it.
 */
export function identity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `${pid}:${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
  } catch {
    return null;
  }
}

/** The identities of root's descendants now: a list to check, when root's exit is seen, with stillThere. */
export function descendantIdentities(root: number): string[] {
  return descendants(root)
    .map(identity)
    .filter((id): id is string => id !== null);
}

/** Of the processes listed earlier (descendantIdentities), those still in the process table. */
export function stillThere(listed: readonly string[]): string[] {
  return listed.filter((id) => identity(Number(id.split(":")[0])) === id);
}
