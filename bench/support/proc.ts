// Linux /proc readings of the processes under test: RSS and CPU time (threads and descendants: test/support/proc.ts).
import { readFileSync } from "node:fs";
import { descendants } from "../../test/support/proc.js";

export { descendantIdentities, descendants, isAlive, stillThere, threadCount } from "../../test/support/proc.js";

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

/** Waits until `pid` burns at most `maxTicks` CPU ticks per `windowMs` (its threads have settled), or the timeout. */
export async function waitForIdle(
  pid: number,
  options: { windowMs?: number; maxTicks?: number; timeoutMs?: number } = {},
): Promise<boolean> {
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

/** Processes under `root` whose command name (comm) is `name`, e.g. "sleep". */
export function countNamed(root: number, name: string): number {
  return descendants(root).filter((pid) => commAndGroup(pid)?.comm === name).length;
}

/** Sandboxes under `root`: bwrap processes that lead a process group (a sandbox's init is in its bwrap's group). */
export function sandboxCount(root: number): number {
  return descendants(root).filter((pid) => {
    const found = commAndGroup(pid);
    return found?.comm === "bwrap" && found.pgid === pid;
  }).length;
}

function commAndGroup(pid: number): { comm: string; pgid: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), pgid: Number(stat.slice(close + 2).split(" ")[2]) };
  } catch {
    return null; // ended while we looked
  }
}
