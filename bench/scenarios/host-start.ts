// Scenario: what starting a host costs, against the floor agent's start. Each start spawns the process and waits
// until it answered `initialize` over stdio (HostClient.spawn), then ends it; starts run one after another.
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import { figure, median, ratio, type Figure } from "../support/stats.js";
import { startFloor, startHost, type System } from "../support/systems.js";
import type { Scenario } from "../scenario.js";

export interface HostStartResult {
  runs: number;
  /** Starts of each system per run; the run's figure is their median. */
  starts: number;
  hostMs: Figure;
  floorMs: Figure;
  /** host ÷ floor of the medians. */
  ratio: number;
}

async function timedStart(start: () => Promise<System>): Promise<number> {
  const started = performance.now();
  const system = await start();
  const ms = performance.now() - started;
  await system.dispose(10_000);
  return ms;
}

export async function hostStart(ctx: BenchContext): Promise<HostStartResult> {
  const runs = ctx.quick ? 1 : 3;
  const starts = ctx.quick ? 3 : 10;
  const measured = await repeat(ctx, "host start", runs, async () => {
    const host: number[] = [];
    const floor: number[] = [];
    // Alternated, so the machine's drift falls on both.
    for (let i = 0; i < starts; i++) {
      host.push(await timedStart(() => startHost()));
      floor.push(await timedStart(startFloor));
    }
    return { host: median(host), floor: median(floor) };
  });
  const hostMs = figure(measured.map((m) => m.host));
  const floorMs = figure(measured.map((m) => m.floor));
  return { runs, starts, hostMs, floorMs, ratio: ratio(hostMs, floorMs) };
}

export const scenario: Scenario<HostStartResult> = {
  order: 18,
  key: "hostStart",
  flag: "host-start",
  title: "18. Host start: serve until it answers initialize, against the floor agent",
  run: hostStart,
  section: (h) => [
    `${plural(h.runs, "run")} of ${h.starts} starts of each system, alternated: the process spawned until it answered ` +
      "`initialize` over stdio, then ended; a run's figure is the median of its starts. The host starts with the bench's " +
      "defaults (a fresh state dir, logs at warn); the floor is the bare SDK agent.",
    "",
    table(
      ["", "start ms"],
      [
        ["host", fmt(h.hostMs)],
        ["floor agent", fmt(h.floorMs)],
        ["host/floor", x(h.ratio)],
      ],
    ),
  ],
};
