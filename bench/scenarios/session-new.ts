// Scenario 2: session/new latency with a warm pool and cold, and 100 session/new at once.
// "ready" is session/new plus the first prompt's answer: session/new returns before the worker has started, so
// the worker's start shows up in the first answer.
import type { HostClient } from "../../src/client/index.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { figures, summarize, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const KEYS = ["newP50", "newP99", "readyP50", "readyP99"] as const;
type Key = (typeof KEYS)[number];

export interface SessionNewResult {
  runs: number;
  samples: number;
  /** --warm-workers = samples: every sequential session/new finds a started, idle worker. */
  warm: Record<Key, Figure>;
  /** --warm-workers 0: every session/new starts a worker thread. */
  cold: Record<Key, Figure>;
  burst: {
    sessions: number;
    /** Until the last of the concurrent session/new answered. */
    allNewMs: Figure;
    newP50: Figure;
    newP99: Figure;
    /** Until every one of those sessions answered its first prompt. */
    allReadyMs: Figure;
  };
}

export async function sessionNew(ctx: BenchContext): Promise<SessionNewResult> {
  const runs = ctx.quick ? 1 : 3;
  const samples = ctx.quick ? 4 : 16;
  const burstSize = ctx.quick ? 20 : 100; // quick mode is a smoke run
  const warm = await repeat(ctx, "session/new warm", runs, () => sequential(ctx, samples, samples));
  const cold = await repeat(ctx, "session/new cold", runs, () => sequential(ctx, 0, samples));
  const burst = await repeat(ctx, `session/new burst of ${burstSize}`, runs, () =>
    withSystem(startHost(), async ({ client, pid }) => {
      await waitForIdle(pid);
      const started = performance.now();
      const created: number[] = [];
      const readyAt: number[] = [];
      await Promise.all(
        Array.from({ length: burstSize }, async () => {
          const sent = performance.now();
          const { sessionId } = await client.newSession(ctx.cwd);
          created.push(performance.now() - sent);
          await client.prompt(sessionId, "first");
          readyAt.push(performance.now() - started);
        }),
      );
      const latency = summarize(created);
      return {
        allNewMs: Math.max(...created),
        newP50: latency.p50,
        newP99: latency.p99,
        allReadyMs: Math.max(...readyAt),
      };
    }),
  );
  return {
    runs,
    samples,
    warm: figures(warm, KEYS),
    cold: figures(cold, KEYS),
    burst: { sessions: burstSize, ...figures(burst, ["allNewMs", "newP50", "newP99", "allReadyMs"] as const) },
  };
}

async function sequential(ctx: BenchContext, warmWorkers: number, samples: number): Promise<Record<Key, number>> {
  return withSystem(startHost(["--warm-workers", String(warmWorkers)]), async ({ client, pid }) => {
    await waitForPool(client, warmWorkers);
    await waitForIdle(pid);
    const created: number[] = [];
    const ready: number[] = [];
    for (let i = 0; i < samples; i++) {
      const sent = performance.now();
      const { sessionId } = await client.newSession(ctx.cwd);
      created.push(performance.now() - sent);
      await client.prompt(sessionId, "first");
      ready.push(performance.now() - sent);
    }
    const c = summarize(created);
    const r = summarize(ready);
    return { newP50: c.p50, newP99: c.p99, readyP50: r.p50, readyP99: r.p99 };
  });
}

/** Waits until the pool has started `workers` threads (their start-up CPU is then awaited with waitForIdle). */
async function waitForPool(client: HostClient, workers: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while ((await client.stats()).threads.workers < workers && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const scenario: Scenario<SessionNewResult> = {
  order: 2,
  key: "sessionNew",
  flag: "session-new",
  title: "2. session/new",
  run: sessionNew,
  section: (n) => [
    `${plural(n.runs, "run")} of ${n.samples} sessions created one after another; "ready" is session/new plus the first answer (the worker starts behind session/new).`,
    "",
    table(
      ["pool", "session/new p50", "session/new p99", "ready p50", "ready p99"],
      [
        [
          `warm (--warm-workers ${n.samples})`,
          fmt(n.warm.newP50),
          fmt(n.warm.newP99),
          fmt(n.warm.readyP50),
          fmt(n.warm.readyP99),
        ],
        ["cold (--warm-workers 0)", fmt(n.cold.newP50), fmt(n.cold.newP99), fmt(n.cold.readyP50), fmt(n.cold.readyP99)],
      ],
    ),
    "",
    `${n.burst.sessions} session/new at once (default pool): all answered in ${fmt(n.burst.allNewMs)} ms ` +
      `(p50 ${fmt(n.burst.newP50)}, p99 ${fmt(n.burst.newP99)}); all ${n.burst.sessions} answered a first prompt after ${fmt(n.burst.allReadyMs)} ms.`,
  ],
};
