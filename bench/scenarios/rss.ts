// Scenario 3: resident memory per live session, host and floor: (RSS at n sessions − RSS at 0) / n, measured after
// every session has answered a prompt and the process has gone idle. Sessions are added in waves of 50; a level the
// host does not reach within LEVEL_DEADLINE_MS is reported with the count it did reach.
import { setTimeout as sleep } from "node:timers/promises";
import type { HostClient } from "../../src/client/index.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { recordIncident } from "../support/incidents.js";
import { rssBytes, waitForIdle } from "../support/proc.js";
import { figure, type Figure } from "../support/stats.js";
import { startSystem, withSystem, type SystemName } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const WAVE = 50;
const LEVEL_DEADLINE_MS = 180_000;

export interface RssRow {
  sessions: number;
  host: RssFigures;
  floor: RssFigures;
}

export interface RssFigures {
  perSessionMiB: Figure;
  totalMiB: Figure;
  /** Live sessions actually measured (less than `sessions` when the level was not reached in time). */
  reached: Figure;
  /** Seconds it took to open this level's new sessions (each answering its first prompt). */
  openSeconds: Figure;
}

export interface RssResult {
  runs: number;
  levelDeadlineS: number;
  baselineMiB: { host: Figure; floor: Figure };
  rows: RssRow[];
}

const MiB = 1024 * 1024;

/**
 * Opens sessions in waves until `level` are ready (each answered a first prompt) or the deadline passes; a wave still
 * in flight at the deadline is left running. Resolves to whether the level was reached.
 */
async function openUpTo(
  client: HostClient,
  cwd: string,
  level: number,
  counter: { requested: number; ready: number },
  deadline: number,
): Promise<boolean> {
  let abandoned = false; // past the deadline, sessions still opening end with the host: not an incident
  const openOne = async () => {
    try {
      const { sessionId } = await client.newSession(cwd);
      await client.prompt(sessionId, "warm up");
      counter.ready++;
    } catch (error) {
      if (!abandoned) recordIncident(`rss: a session failed to open: ${(error as Error).message}`);
    }
  };
  while (counter.requested < level) {
    const remaining = deadline - performance.now();
    if (remaining <= 0) return false;
    const size = Math.min(WAVE, level - counter.requested);
    counter.requested += size;
    const wave = Promise.all(Array.from({ length: size }, openOne));
    const stop = new AbortController();
    const inTime = await Promise.race([
      wave.then(() => true),
      sleep(remaining, false, { signal: stop.signal }).catch(() => false),
    ]);
    stop.abort();
    if (!inTime) {
      abandoned = true;
      return false;
    }
  }
  return counter.ready >= level;
}

interface Level {
  rss: number;
  reached: number;
  openMs: number;
}

export async function rss(ctx: BenchContext): Promise<RssResult> {
  const levels = ctx.quick ? [10, 50] : [10, 100, 500];
  const runs = ctx.quick ? 1 : 2;
  // Opening 400 more sessions takes minutes on a small machine: the top level is measured in the first run only.
  const levelsOf = (rep: number) => (rep === 0 || levels.length < 3 ? levels : levels.slice(0, -1));
  const top = levels.at(-1)!;
  const hostArgs = ["--warm-workers", "0", "--max-live-workers", String(top + 8), "--max-sessions", String(top + 8)];
  const collect = async (name: SystemName) =>
    repeat(ctx, `rss ${name} up to ${top} sessions (first run)`, runs, (rep) =>
      withSystem(startSystem(name, hostArgs), async ({ client, pid }) => {
        await waitForIdle(pid);
        const baseline = rssBytes(pid);
        const at: Level[] = [];
        const counter = { requested: 0, ready: 0 };
        for (const level of levelsOf(rep)) {
          const started = performance.now();
          const reachedLevel = await openUpTo(client, ctx.cwd, level, counter, started + LEVEL_DEADLINE_MS);
          const openMs = performance.now() - started;
          if (!reachedLevel)
            ctx.log(
              `rss ${name}: ${counter.ready} of ${level} sessions ready after ${Math.round(openMs / 1000)} s: measuring there`,
            );
          await waitForIdle(pid, { timeoutMs: 20_000 });
          at.push({ rss: rssBytes(pid), reached: counter.ready, openMs });
          if (!reachedLevel) break;
        }
        return { baseline, at };
      }),
    );
  const host = await collect("host");
  const floor = await collect("floor");
  const figuresAt = (i: number, runsOf: typeof host): RssFigures => {
    const measured = runsOf.map((r) => r.at[i]).filter((level) => level !== undefined);
    return {
      perSessionMiB: figure(
        runsOf.flatMap((r) => (r.at[i] ? [(r.at[i]!.rss - r.baseline) / r.at[i]!.reached / MiB] : [])),
      ),
      totalMiB: figure(measured.map((level) => level.rss / MiB)),
      reached: figure(measured.map((level) => level.reached)),
      openSeconds: figure(measured.map((level) => level.openMs / 1000)),
    };
  };
  return {
    runs,
    levelDeadlineS: LEVEL_DEADLINE_MS / 1000,
    baselineMiB: { host: figure(host.map((r) => r.baseline / MiB)), floor: figure(floor.map((r) => r.baseline / MiB)) },
    rows: levels.map((sessions, i) => ({ sessions, host: figuresAt(i, host), floor: figuresAt(i, floor) })),
  };
}

export const scenario: Scenario<RssResult> = {
  order: 3,
  key: "rss",
  flag: "rss",
  title: "3. Memory per live session",
  run: rss,
  section: (r) => [
    `${plural(r.runs, "run")} (the top level in the first only). Process RSS (VmRSS) after every session answered a prompt, less the idle process ` +
      `(host ${fmt(r.baselineMiB.host)} MiB with no worker, floor ${fmt(r.baselineMiB.floor)} MiB), per session. ` +
      `Sessions are added 50 at a time; a level not reached within ${r.levelDeadlineS} s is measured where it stood ("reached").`,
    "",
    table(
      [
        "live sessions",
        "host reached",
        "host MiB/session",
        "host RSS MiB",
        "host s to open",
        "floor MiB/session",
        "floor RSS MiB",
      ],
      r.rows.map((row) => [
        String(row.sessions),
        fmt(row.host.reached, 0),
        fmt(row.host.perSessionMiB),
        fmt(row.host.totalMiB),
        fmt(row.host.openSeconds),
        fmt(row.floor.perSessionMiB, 3),
        fmt(row.floor.totalMiB),
      ]),
    ),
  ],
};
