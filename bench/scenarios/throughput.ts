// Scenario 1: S sessions × K prompts each, all sessions at once, on the host and on the floor (bare SDK agent);
// then one echo prompt's hops measured one by one (bench/processes/hot-path-probe.ts).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { figure, figures, ratio, type Figure } from "../support/stats.js";
import { echoPrompts, openSessions, startSystem, withSystem, type SystemName } from "../support/systems.js";
import type { HotPathReport } from "../processes/hot-path-probe.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";
import { latencyChart } from "../support/chart.js";

const HOT_PATH_PROBE = fileURLToPath(new URL("../processes/hot-path-probe.js", import.meta.url));

/** The host again with its state dir on tmpfs, where fdatasync returns at once: what the turn-end fsync costs. */
type Variant = SystemName | "hostOnTmpfs";
const TMPFS = "/dev/shm";
const VARIANTS: Variant[] = existsSync(TMPFS) ? ["host", "floor", "hostOnTmpfs"] : ["host", "floor"];
const LATENCY_KEYS = ["p50", "p95", "p99"] as const;

export interface ThroughputRow {
  sessions: number;
  promptsPerSession: number;
  host: SystemFigures;
  floor: SystemFigures;
  /** null where the machine has no tmpfs at /dev/shm. */
  hostOnTmpfs: SystemFigures | null;
  /** host ÷ floor of the medians: >1 means the host is slower (latency) or faster (prompts/s). */
  ratio: { promptsPerSecond: number; p50: number; p99: number };
  /** The same for the host with its log on tmpfs. */
  tmpfsRatio: { promptsPerSecond: number; p50: number } | null;
}

export interface SystemFigures {
  promptsPerSecond: Figure;
  latencyMs: Record<(typeof LATENCY_KEYS)[number], Figure>;
}

export interface ThroughputResult {
  runs: number;
  rows: ThroughputRow[];
  /** One echo prompt's hops, each measured alone (medians, µs). */
  breakdown: HotPathReport;
}

interface RunMeasure {
  promptsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
}

export async function throughput(ctx: BenchContext): Promise<ThroughputResult> {
  // K per S keeps the sample count per run high enough for a p99 without making S = 100 take minutes.
  const plan = ctx.quick
    ? [
        { sessions: 1, prompts: 20 },
        { sessions: 20, prompts: 2 },
      ]
    : [
        { sessions: 1, prompts: 300 },
        { sessions: 10, prompts: 40 },
        { sessions: 100, prompts: 10 },
      ];
  const runs = ctx.quick ? 1 : 3;
  const rows: ThroughputRow[] = [];
  for (const { sessions, prompts } of plan) {
    const measured: Record<Variant, RunMeasure[]> = { host: [], floor: [], hostOnTmpfs: [] };
    await repeat(ctx, `throughput S=${sessions} K=${prompts}`, runs, async (rep) => {
      // Alternate the order so slow drift of the machine does not favour one of them.
      const order = rep % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
      for (const name of order) measured[name].push(await measureOnce(ctx, name, sessions, prompts));
    });
    const fig = (name: Variant): SystemFigures => ({
      promptsPerSecond: figure(measured[name].map((m) => m.promptsPerSecond)),
      latencyMs: figures(measured[name], LATENCY_KEYS),
    });
    const host = fig("host");
    const floor = fig("floor");
    const hostOnTmpfs = measured.hostOnTmpfs.length > 0 ? fig("hostOnTmpfs") : null;
    rows.push({
      sessions,
      promptsPerSession: prompts,
      host,
      floor,
      hostOnTmpfs,
      ratio: {
        promptsPerSecond: ratio(host.promptsPerSecond, floor.promptsPerSecond),
        p50: ratio(host.latencyMs.p50, floor.latencyMs.p50),
        p99: ratio(host.latencyMs.p99, floor.latencyMs.p99),
      },
      tmpfsRatio: hostOnTmpfs && {
        promptsPerSecond: ratio(hostOnTmpfs.promptsPerSecond, floor.promptsPerSecond),
        p50: ratio(hostOnTmpfs.latencyMs.p50, floor.latencyMs.p50),
      },
    });
  }
  const { stdout } = await promisify(execFile)(process.execPath, [HOT_PATH_PROBE, ctx.quick ? "100" : "1000"]);
  return { runs, rows, breakdown: JSON.parse(stdout) as HotPathReport };
}

async function measureOnce(ctx: BenchContext, name: Variant, sessions: number, prompts: number): Promise<RunMeasure> {
  const args = ["--max-live-workers", String(Math.max(256, sessions + 8))];
  const stateDir = name === "hostOnTmpfs" ? mkdtempSync(`${TMPFS}/ash-bench-state-`) : null;
  try {
    const system =
      name === "hostOnTmpfs" ? startSystem("host", [...args, "--state-dir", stateDir!]) : startSystem(name, args);
    return await withSystem(system, async ({ client }) => {
      const ids = await openSessions(client, sessions, ctx.cwd);
      return echoPrompts(client, ids, prompts, name);
    });
  } finally {
    if (stateDir) rmSync(stateDir, { recursive: true, force: true });
  }
}

export const scenario: Scenario<ThroughputResult> = {
  order: 1,
  key: "throughput",
  flag: "throughput",
  title: "1. Throughput: the host against the floor (bare SDK agent over stdio, same scripted model)",
  run: throughput,
  chart: (t, stamp) => latencyChart(t, `Prompt latency against sessions: host vs floor (${stamp})`),
  section: (t) => [
    `${plural(t.runs, "run")}. Every session sends K echo prompts one after another, all S sessions at once; host/floor is the ratio of the medians. ` +
      "The host journals every turn to its session log (fsync at the end of each turn); the floor keeps nothing. " +
      '"host, log on tmpfs" is the host with its state dir on tmpfs, where fdatasync returns at once: the difference is what the turn-end fsync costs on this disk.',
    "",
    table(
      ["S × K", "system", "prompts/s", "p50", "p95", "p99"],
      t.rows.flatMap((r) => [
        [
          `${r.sessions} × ${r.promptsPerSession}`,
          "host",
          fmt(r.host.promptsPerSecond),
          fmt(r.host.latencyMs.p50),
          fmt(r.host.latencyMs.p95),
          fmt(r.host.latencyMs.p99),
        ],
        [
          "",
          "floor",
          fmt(r.floor.promptsPerSecond),
          fmt(r.floor.latencyMs.p50),
          fmt(r.floor.latencyMs.p95),
          fmt(r.floor.latencyMs.p99),
        ],
        ["", "host/floor", x(r.ratio.promptsPerSecond), x(r.ratio.p50), "", x(r.ratio.p99)],
        ...(r.hostOnTmpfs && r.tmpfsRatio
          ? [
              [
                "",
                "host, log on tmpfs",
                fmt(r.hostOnTmpfs.promptsPerSecond),
                fmt(r.hostOnTmpfs.latencyMs.p50),
                fmt(r.hostOnTmpfs.latencyMs.p95),
                fmt(r.hostOnTmpfs.latencyMs.p99),
              ],
              ["", "tmpfs host/floor", x(r.tmpfsRatio.promptsPerSecond), x(r.tmpfsRatio.p50), "", ""],
            ]
          : []),
      ]),
    ),
    "",
    "One echo prompt, hop by hop, each measured alone with the host's own code (medians, µs): the SDK's decode and encode and the " +
      "stdio round trip are what the floor's p50 is made of; the host adds the hops below.",
    "",
    table(
      [
        "main → worker → main (port)",
        "worker turn (loop + model)",
        "log appends",
        "turn-end fdatasync + sidecar",
        "main: check + translate events",
      ],
      [
        [
          t.breakdown.portRoundTripUs,
          t.breakdown.workerTurnUs,
          t.breakdown.journalAppendUs,
          t.breakdown.journalSyncUs,
          t.breakdown.mainEventsUs,
        ].map((us) => us.toFixed(0)),
      ],
    ),
  ],
};
