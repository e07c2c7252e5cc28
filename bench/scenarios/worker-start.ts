// Scenario: what one session worker costs against the bare thread it runs on, on the bench's own Node and on a second
// one if BENCH_NODE names it (bench/support/bench-node.ts). Each system runs in a fresh process of that Node
// (bench/processes/worker-start-probe.ts): starts one after another (CPU and wall time per start), then RSS per live
// idle one.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { figure, ratio, type Figure } from "../support/stats.js";
import type { ProbeReport } from "../processes/worker-start-probe.js";
import { benchNodes, type BenchNode } from "../support/bench-node.js";
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

/** One Node's column. */
export interface WorkerStartColumn {
  /** What `node --version` says. */
  node: string;
  v8: string;
  /** Whether its threads took the session worker's code cache: without it the column is not the host's start. */
  codeCacheTaken: boolean;
  bare: WorkerStartFigures;
  session: WorkerStartFigures;
  /** session ÷ bare of the medians. */
  ratio: { cpu: number; wall: number; rss: number };
}

export interface WorkerStartResult {
  runs: number;
  starts: number;
  live: number;
  /** The bench's own Node first, then BENCH_NODE's. */
  columns: WorkerStartColumn[];
  /** Why no second Node was measured, if none was. */
  notMeasured: string | null;
}

async function probe(node: BenchNode, variant: Variant, starts: number, live: number): Promise<ProbeReport> {
  const { stdout } = await promisify(execFile)(node.path, [PROBE, variant, String(starts), String(live)], {
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as ProbeReport;
}

function column(node: BenchNode, reports: ProbeReport[]): WorkerStartColumn {
  const figs = (variant: Variant): WorkerStartFigures => {
    const mine = reports.filter((r) => r.variant === variant);
    return {
      cpuMsPerStart: figure(mine.map((r) => r.cpuMsPerStart)),
      wallMsPerStart: figure(mine.map((r) => r.wallMsPerStart)),
      rssPerLiveMiB: figure(mine.map((r) => r.rssPerLiveMiB)),
    };
  };
  const bare = figs("bare");
  const session = figs("session");
  return {
    node: node.version,
    v8: node.v8,
    codeCacheTaken: node.codeCacheTaken,
    bare,
    session,
    ratio: {
      cpu: ratio(session.cpuMsPerStart, bare.cpuMsPerStart),
      wall: ratio(session.wallMsPerStart, bare.wallMsPerStart),
      rss: ratio(session.rssPerLiveMiB, bare.rssPerLiveMiB),
    },
  };
}

export async function workerStart(ctx: BenchContext): Promise<WorkerStartResult> {
  const runs = ctx.quick ? 1 : 5;
  const starts = ctx.quick ? 10 : 40;
  const live = ctx.quick ? 10 : 50;
  const { nodes, notMeasured } = await benchNodes();
  const reports = nodes.map((): ProbeReport[] => []);
  // Each run measures every Node in turn, so a change in the machine's load falls on all of them alike.
  await repeat(ctx, "worker-start", runs, async (rep) => {
    for (const [i, node] of nodes.entries())
      for (const variant of rep % 2 === 0 ? VARIANTS : [...VARIANTS].reverse())
        reports[i]!.push(await probe(node, variant, starts, live));
  });
  return { runs, starts, live, columns: nodes.map((node, i) => column(node, reports[i]!)), notMeasured };
}

function rows(w: WorkerStartResult): string[][] {
  const cells = (pick: (c: WorkerStartColumn) => [Figure, Figure, Figure]) =>
    w.columns.flatMap((c) => pick(c).map((f) => fmt(f)));
  return [
    ["bare worker (floor)", ...cells((c) => [c.bare.cpuMsPerStart, c.bare.wallMsPerStart, c.bare.rssPerLiveMiB])],
    ["session worker", ...cells((c) => [c.session.cpuMsPerStart, c.session.wallMsPerStart, c.session.rssPerLiveMiB])],
    ["session/bare", ...w.columns.flatMap((c) => [x(c.ratio.cpu), x(c.ratio.wall), x(c.ratio.rss)])],
  ];
}

/** Whether each Node's threads took the session worker's code cache of its V8 version. */
function cacheNote(w: WorkerStartResult): string {
  const each = w.columns.map(
    (c) => `${c.codeCacheTaken ? "taken" : "**not taken** (not the host's start)"} on Node ${c.node} (V8 ${c.v8})`,
  );
  return `The session worker's code cache: ${each.join("; ")}.`;
}

export const scenario: Scenario<WorkerStartResult> = {
  order: 0,
  key: "workerStart",
  flag: "worker-start",
  title: "0. Worker start: a session worker against a bare thread",
  run: workerStart,
  section: (w) => [
    `${plural(w.runs, "run")}, each system in a fresh process of each Node: ${w.starts} starts one after another (CPU and wall time per start: ` +
      "the bare thread until its first message; the session worker until its session is open), then RSS per live idle one " +
      `(${w.live} kept). The bare thread is \`new Worker()\` posting one message.`,
    "",
    table(
      [
        "",
        ...w.columns.flatMap((c) => [
          `CPU ms/start, Node ${c.node}`,
          `wall ms/start, Node ${c.node}`,
          `RSS MiB/live worker, Node ${c.node}`,
        ]),
      ],
      rows(w),
    ),
    "",
    cacheNote(w),
    ...(w.notMeasured === null ? [] : ["", `A second Node was not measured: ${w.notMeasured}.`]),
  ],
};
