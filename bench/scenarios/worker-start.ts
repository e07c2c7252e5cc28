// Scenario: what one session worker costs against the bare thread it runs on. Each system runs in a fresh process
// (bench/processes/worker-start-probe.ts): starts one after another (CPU and wall time per start), then RSS per
// live idle one.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { figure, ratio, type Figure } from "../support/stats.js";
import type { ProbeReport } from "../processes/worker-start-probe.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const PROBE = fileURLToPath(new URL("../processes/worker-start-probe.js", import.meta.url));
const VARIANTS = ["bare", "session"] as const;
type Variant = (typeof VARIANTS)[number];

export interface WorkerStartFigures {
  cpuMsPerStart: Figure;
  wallMsPerStart: Figure;
  rssPerLiveMiB: Figure;
}

export interface WorkerStartResult {
  runs: number;
  starts: number;
  live: number;
  bare: WorkerStartFigures;
  session: WorkerStartFigures;
  /** session ÷ bare of the medians. */
  ratio: { cpu: number; wall: number; rss: number };
}

async function probe(variant: Variant, starts: number, live: number): Promise<ProbeReport> {
  const { stdout } = await promisify(execFile)(process.execPath, [PROBE, variant, String(starts), String(live)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as ProbeReport;
}

export async function workerStart(ctx: BenchContext): Promise<WorkerStartResult> {
  const runs = ctx.quick ? 1 : 5;
  const starts = ctx.quick ? 10 : 40;
  const live = ctx.quick ? 10 : 50;
  const reports: Record<Variant, ProbeReport[]> = { bare: [], session: [] };
  await repeat(ctx, "worker-start", runs, async (rep) => {
    for (const variant of rep % 2 === 0 ? VARIANTS : [...VARIANTS].reverse())
      reports[variant].push(await probe(variant, starts, live));
  });
  const figs = (variant: Variant): WorkerStartFigures => ({
    cpuMsPerStart: figure(reports[variant].map((r) => r.cpuMsPerStart)),
    wallMsPerStart: figure(reports[variant].map((r) => r.wallMsPerStart)),
    rssPerLiveMiB: figure(reports[variant].map((r) => r.rssPerLiveMiB)),
  });
  const bare = figs("bare");
  const session = figs("session");
  return {
    runs,
    starts,
    live,
    bare,
    session,
    ratio: {
      cpu: ratio(session.cpuMsPerStart, bare.cpuMsPerStart),
      wall: ratio(session.wallMsPerStart, bare.wallMsPerStart),
      rss: ratio(session.rssPerLiveMiB, bare.rssPerLiveMiB),
    },
  };
}

export const scenario: Scenario<WorkerStartResult> = {
  order: 0,
  key: "workerStart",
  flag: "worker-start",
  title: "0. Worker start: a session worker against a bare thread",
  run: workerStart,
  section: (w) => [
    `${plural(w.runs, "run")}, each system in a fresh process: ${w.starts} starts one after another (CPU and wall time per start: ` +
      "the bare thread until its first message; the session worker until its session is open), then RSS per live idle one " +
      `(${w.live} kept). The bare thread is \`new Worker()\` posting one message.`,
    "",
    table(
      ["", "CPU ms/start", "wall ms/start", "RSS MiB/live worker"],
      [
        ["bare worker (floor)", fmt(w.bare.cpuMsPerStart), fmt(w.bare.wallMsPerStart), fmt(w.bare.rssPerLiveMiB)],
        ["session worker", fmt(w.session.cpuMsPerStart), fmt(w.session.wallMsPerStart), fmt(w.session.rssPerLiveMiB)],
        ["session/bare", x(w.ratio.cpu), x(w.ratio.wall), x(w.ratio.rss)],
      ],
    ),
  ],
};
