// Finds a moment when some thread of a process is inside fsync or fdatasync (its /proc/<pid>/task/<tid>/syscall
// names the call it is blocked in), so the kill -9 loop can land a kill mid-fsync rather than only around it.
import { readdir, readFile } from "node:fs/promises";

const FSYNC_CALLS: Record<string, number[]> = { x64: [74, 75], arm64: [82, 83] };

/** Resolves true as soon as a thread of pid is seen in fsync/fdatasync, false if none is within withinMs. */
export async function whenInFsync(pid: number, withinMs: number): Promise<boolean> {
  const calls = FSYNC_CALLS[process.arch];
  if (!calls) return false;
  const until = performance.now() + withinMs;
  while (performance.now() < until) {
    const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
    if (tids.length === 0) return false;
    const syscalls = await Promise.all(
      tids.map((tid) => readFile(`/proc/${pid}/task/${tid}/syscall`, "latin1").catch(() => "")),
    );
    if (syscalls.some((line) => calls.includes(Number(line.split(" ", 1)[0])))) return true;
  }
  return false;
}
