// Is a process group gone? kill(-pgid, 0) alone says no while a dead member waits to be reaped, and a sandbox's
// reaper (bwrap's pid-namespace init) is reparented to pid 1 when bwrap exits, which may reap it late. So a group
// counts as gone when no member is alive: kill() finds none, or /proc lists only zombies. One /proc scan per tick
// serves every group being waited for.
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10;

interface Waiter {
  resolve(gone: boolean): void;
  deadline: number;
}

const waiters = new Map<number, Waiter[]>();
let timer: NodeJS.Timeout | null = null;

/** Resolves true once no live process is left in the group, false if some still is after timeoutMs. */
export function whenGroupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const list = waiters.get(pgid) ?? [];
    list.push({ resolve, deadline: Date.now() + timeoutMs });
    waiters.set(pgid, list);
    if (list.length === 1) check([pgid]);
    schedule();
  });
}

function schedule(): void {
  if (timer || waiters.size === 0) return;
  timer = setTimeout(() => {
    timer = null;
    check([...waiters.keys()]);
    schedule();
  }, TICK_MS);
}

function check(pgids: number[]): void {
  const maybeLive = pgids.filter((pgid) => {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      // EPERM: a member we may not signal (a setuid program) is still there.
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") return true;
      settle(pgid, true);
      return false;
    }
  });
  if (maybeLive.length === 0) return;
  const live = liveGroups();
  const now = Date.now();
  for (const pgid of maybeLive) {
    if (!live.has(pgid)) settle(pgid, true);
    else for (const waiter of waiters.get(pgid)?.filter((w) => w.deadline <= now) ?? []) settleOne(pgid, waiter);
  }
}

function settle(pgid: number, gone: boolean): void {
  for (const waiter of waiters.get(pgid) ?? []) waiter.resolve(gone);
  waiters.delete(pgid);
}

function settleOne(pgid: number, waiter: Waiter): void {
  waiter.resolve(false);
  const rest = (waiters.get(pgid) ?? []).filter((w) => w !== waiter);
  if (rest.length === 0) waiters.delete(pgid);
  else waiters.set(pgid, rest);
}

/** Process groups with at least one member that is not a zombie. */
function liveGroups(): Set<number> {
  const live = new Set<number>();
  for (const name of readdirSync("/proc")) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "latin1");
    } catch {
      continue; // ended while we looked
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const state = fields[0];
    if (state === "Z" || state === "X") continue;
    live.add(Number(fields[2]));
  }
  return live;
}
