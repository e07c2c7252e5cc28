// Scenario 3: resident memory per live session, host and floor: (RSS at n sessions − RSS at 0) / n, measured after
// every session has answered a prompt and the process has gone idle.
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { rssBytes, waitForIdle } from "../proc.js";
import { figure, type Figure } from "../stats.js";
import { openSessions, startSystem, withSystem, type SystemName } from "../systems.js";

export interface RssRow {
  sessions: number;
  host: { perSessionMiB: Figure; totalMiB: Figure };
  floor: { perSessionMiB: Figure; totalMiB: Figure };
}

export interface RssResult {
  runs: number;
  baselineMiB: { host: Figure; floor: Figure };
  rows: RssRow[];
}

const MiB = 1024 * 1024;

export async function rss(ctx: BenchContext): Promise<RssResult> {
  const levels = ctx.quick ? [10, 100] : [10, 100, 500];
  const runs = ctx.quick ? 1 : 2;
  const top = levels.at(-1)!;
  const hostArgs = ["--warm-workers", "0", "--max-live-workers", String(top + 8), "--max-sessions", String(top + 8)];
  const collect = async (name: SystemName) =>
    repeat(ctx, `rss ${name} up to ${top} sessions`, runs, () =>
      withSystem(startSystem(name, hostArgs), async ({ client, pid }) => {
        await waitForIdle(pid);
        const baseline = rssBytes(pid);
        const at: number[] = [];
        let open = 0;
        for (const level of levels) {
          await openSessions(client, level - open, ctx.cwd);
          open = level;
          await waitForIdle(pid, { timeoutMs: 20_000 });
          at.push(rssBytes(pid));
        }
        return { baseline, at };
      }),
    );
  const host = await collect("host");
  const floor = await collect("floor");
  const row = (i: number, runsOf: typeof host) => ({
    perSessionMiB: figure(runsOf.map((r) => (r.at[i]! - r.baseline) / levels[i]! / MiB)),
    totalMiB: figure(runsOf.map((r) => r.at[i]! / MiB)),
  });
  return {
    runs,
    baselineMiB: { host: figure(host.map((r) => r.baseline / MiB)), floor: figure(floor.map((r) => r.baseline / MiB)) },
    rows: levels.map((sessions, i) => ({ sessions, host: row(i, host), floor: row(i, floor) })),
  };
}
