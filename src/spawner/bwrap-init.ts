// Ending a bwrap sandbox so that every process in it is reaped by its own parent. bwrap forks the pid namespace's
// init (a bwrap of its own, the namespace's reaper). When the program it runs exits, the init tells bwrap the status
// and bwrap exits at once, without reaping it: the init, still emptying its namespace, is orphaned to pid 1, which
// reaps it when it gets round to it, a process of the host's in the process table after the host has exited. So is
// it when bwrap's whole group is killed. SIGKILLed alone, the init tells nothing: bwrap waits for it and reaps it,
// which it can only once the kernel has emptied the namespace, and then exits; bwrap's exit then means the sandbox
// is empty.
import type { ChildProcess } from "node:child_process";

/** The init's pid (as the spawner sees it) from what bwrap wrote to its --json-status-fd so far; null before it. */
export function initPidOf(status: string): number | null {
  const found = /"child-pid"\s*:\s*(\d+)/.exec(status);
  return found ? Number(found[1]) : null;
}

/**
 * SIGKILLs bwrap's namespace init, or bwrap's group while the init is not known yet; nothing once bwrap has exited
 * (its pid, and so its init's, may be anyone's then).
 */
export function killSandbox(bwrap: ChildProcess, initPid: number | null): void {
  if (bwrap.pid === undefined || bwrap.exitCode !== null || bwrap.signalCode !== null) return;
  try {
    process.kill(initPid ?? -bwrap.pid, "SIGKILL");
  } catch {
    // ESRCH: already gone
  }
}
