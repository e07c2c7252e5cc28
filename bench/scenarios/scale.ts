// Scenario: many sessions at once, as `acp-session-host run --sessions N --turns K` drives them (echo prompts, the
// host's default flags: past --max-live-workers sessions hibernate and wake), against the floor measured right
// after in the same run: N bare worker threads started at once in one process, each answering K echo messages.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { cpuTicks, rssBytes, waitForIdle } from "../support/proc.js";
import { figures, summarize, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const FLOOR = fileURLToPath(new URL("../processes/scale-floor-probe.js", import.meta.url));
const TICK_MS = 10;

export interface ScaleRow {
  sessions: number;
  turns: number;
  host: {
    wallMs: Figure;
    cpuMsPerSession: Figure;
    rssMiBPerSession: Figure;
    p50: Figure;
    p99: Figure;
    failures: Figure;
  };
  floor: { wallMs: Figure; cpuMsPerSession: Figure };
  ratio: { wall: number; cpu: number };
}

export interface ScaleResult {
  runs: number;
  rows: ScaleRow[];
}

interface HostRun {
  wallMs: number;
  cpuMsPerSession: number;
  rssMiBPerSession: number;
  p50: number;
  p99: number;
  failures: number;
}

async function hostRun(ctx: BenchContext, sessions: number, turns: number): Promise<HostRun> {
  return withSystem(startHost(["--hibernate-after-ms", "60000"]), async ({ client, pid }) => {
    await waitForIdle(pid);
    const rss0 = rssBytes(pid);
    let rssPeak = rss0;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(pid))), 100);
    const ticks0 = cpuTicks(pid);
    const latencies: number[] = [];
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: sessions }, async () => {
        try {
          const { sessionId } = await client.newSession(ctx.cwd);
          for (let turn = 0; turn < turns; turn++) {
            const sent = performance.now();
            const result = await client.prompt(sessionId, `hi ${turn}`);
            latencies.push(performance.now() - sent);
            if (result.stopReason !== "end_turn") failures++;
          }
        } catch {
          failures++;
        }
      }),
    );
    const wallMs = performance.now() - started;
    clearInterval(sampler);
    const { p50, p99 } = summarize(latencies);
    return {
      wallMs,
      cpuMsPerSession: ((cpuTicks(pid) - ticks0) * TICK_MS) / sessions,
      rssMiBPerSession: (rssPeak - rss0) / 2 ** 20 / sessions,
      p50,
      p99,
      failures,
    };
  });
}

async function floorRun(sessions: number, turns: number): Promise<{ wallMs: number; cpuMsPerSession: number }> {
  const { stdout } = await promisify(execFile)(process.execPath, [FLOOR, String(sessions), String(turns)], {
    maxBuffer: 1 << 20,
  });
  const { wallMs, cpuMs } = JSON.parse(stdout) as { wallMs: number; cpuMs: number };
  return { wallMs, cpuMsPerSession: cpuMs / sessions };
}

export async function scale(ctx: BenchContext): Promise<ScaleResult> {
  const plan = ctx.quick
    ? [
        { sessions: 20, turns: 2 },
        { sessions: 50, turns: 1 },
      ]
    : [
        { sessions: 50, turns: 3 },
        { sessions: 200, turns: 3 },
        { sessions: 1000, turns: 1 },
      ];
  const runs = ctx.quick ? 1 : 2;
  const rows: ScaleRow[] = [];
  for (const { sessions, turns } of plan) {
    const host: HostRun[] = [];
    const floor: Array<{ wallMs: number; cpuMsPerSession: number }> = [];
    await repeat(ctx, `scale ${sessions} × ${turns}`, runs, async () => {
      host.push(await hostRun(ctx, sessions, turns));
      floor.push(await floorRun(sessions, turns));
    });
    const hostFigs = figures(host, [
      "wallMs",
      "cpuMsPerSession",
      "rssMiBPerSession",
      "p50",
      "p99",
      "failures",
    ] as const);
    const floorFigs = figures(floor, ["wallMs", "cpuMsPerSession"] as const);
    rows.push({
      sessions,
      turns,
      host: hostFigs,
      floor: floorFigs,
      ratio: {
        wall: hostFigs.wallMs.median / floorFigs.wallMs.median,
        cpu: hostFigs.cpuMsPerSession.median / floorFigs.cpuMsPerSession.median,
      },
    });
  }
  return { runs, rows };
}

export const scenario: Scenario<ScaleResult> = {
  order: 3.5,
  key: "scale",
  flag: "scale",
  title: "3b. Scale: many sessions at once against as many bare threads",
  run: scale,
  section: (c) => [
    `${plural(c.runs, "run")}. The host: N sessions opened at once, each sending K echo prompts one after another, default flags ` +
      "(past --max-live-workers 256 sessions hibernate and wake). CPU is the host process's (all its threads); RSS is its peak less the idle host. " +
      "The floor, measured right after: N bare worker threads started at once in one process, each answering K echo messages over its port.",
    "",
    table(
      [
        "N × K",
        "host wall ms",
        "floor wall ms",
        "wall host/floor",
        "host CPU ms/session",
        "floor CPU ms/session",
        "CPU host/floor",
        "host RSS MiB/session",
        "p50",
        "p99",
        "failures",
      ],
      c.rows.map((r) => [
        `${r.sessions} × ${r.turns}`,
        fmt(r.host.wallMs),
        fmt(r.floor.wallMs),
        x(r.ratio.wall),
        fmt(r.host.cpuMsPerSession),
        fmt(r.floor.cpuMsPerSession),
        x(r.ratio.cpu),
        fmt(r.host.rssMiBPerSession),
        fmt(r.host.p50),
        fmt(r.host.p99),
        fmt(r.host.failures, 0),
      ]),
    ),
  ],
};
