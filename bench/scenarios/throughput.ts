// Scenario 1: S sessions × K prompts each, all sessions at once, on the host and on the floor (bare SDK agent);
// then one echo prompt's hops measured one by one (bench/hot-path-probe.ts).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { figure, figures, ratio, type Figure } from "../stats.js";
import { echoPrompts, openSessions, startSystem, withSystem, type SystemName } from "../systems.js";
import type { HotPathReport } from "../hot-path-probe.js";

const HOT_PATH_PROBE = fileURLToPath(new URL("../hot-path-probe.js", import.meta.url));

const SYSTEMS: SystemName[] = ["host", "floor"];
const LATENCY_KEYS = ["p50", "p95", "p99"] as const;

export interface ThroughputRow {
  sessions: number;
  promptsPerSession: number;
  host: SystemFigures;
  floor: SystemFigures;
  /** host ÷ floor of the medians: >1 means the host is slower (latency) or faster (prompts/s). */
  ratio: { promptsPerSecond: number; p50: number; p99: number };
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
        { sessions: 1, prompts: 100 },
        { sessions: 10, prompts: 20 },
        { sessions: 100, prompts: 5 },
      ]
    : [
        { sessions: 1, prompts: 300 },
        { sessions: 10, prompts: 40 },
        { sessions: 100, prompts: 10 },
      ];
  const runs = ctx.quick ? 1 : 3;
  const rows: ThroughputRow[] = [];
  for (const { sessions, prompts } of plan) {
    const measured: Record<SystemName, RunMeasure[]> = { host: [], floor: [] };
    await repeat(ctx, `throughput S=${sessions} K=${prompts}`, runs, async (rep) => {
      // Alternate which system goes first so slow drift of the machine does not favour one of them.
      const order = rep % 2 === 0 ? SYSTEMS : [...SYSTEMS].reverse();
      for (const name of order) measured[name].push(await measureOnce(ctx, name, sessions, prompts));
    });
    const fig = (name: SystemName): SystemFigures => ({
      promptsPerSecond: figure(measured[name].map((m) => m.promptsPerSecond)),
      latencyMs: figures(measured[name], LATENCY_KEYS),
    });
    const host = fig("host");
    const floor = fig("floor");
    rows.push({
      sessions,
      promptsPerSession: prompts,
      host,
      floor,
      ratio: {
        promptsPerSecond: ratio(host.promptsPerSecond, floor.promptsPerSecond),
        p50: ratio(host.latencyMs.p50, floor.latencyMs.p50),
        p99: ratio(host.latencyMs.p99, floor.latencyMs.p99),
      },
    });
  }
  const { stdout } = await promisify(execFile)(process.execPath, [HOT_PATH_PROBE, ctx.quick ? "200" : "1000"]);
  return { runs, rows, breakdown: JSON.parse(stdout) as HotPathReport };
}

async function measureOnce(ctx: BenchContext, name: SystemName, sessions: number, prompts: number): Promise<RunMeasure> {
  return withSystem(startSystem(name, ["--max-live-workers", String(Math.max(256, sessions + 8))]), async ({ client }) => {
    const ids = await openSessions(client, sessions, ctx.cwd);
    return echoPrompts(client, ids, prompts, name);
  });
}
