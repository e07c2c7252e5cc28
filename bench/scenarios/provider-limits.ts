// Scenario 21: many sessions on one provider that says no (test/support/provider-emulator.ts on loopback), against the
// floor its own limits give. Each row is one run of `run`'s workload (S sessions × T turns, all at once):
//   concurrency: 8 requests at once, 429 with Retry-After: 1 past it, 500 ms to the first token and 8 chunks 20 ms
//                apart; floor = requests × one request's time ÷ 8;
//   rate: 120 requests a minute (x-ratelimit-* headers, 429 at zero), answered at once; floor = the windows the
//         requests need (the last one's request excepted);
//   slows: never refuses, each request in flight slows the next one's first token by 20 ms (as vLLM does), with
//          --model-concurrency 4: the peak in flight the provider saw.
// Failed turns and refused requests are counted as the provider and the host saw them.
import type { HostClient } from "../../src/client/index.js";
import { ProviderEmulator, type EmulatorOptions } from "../../test/support/provider-emulator.js";
import type { BenchContext } from "../context.js";
import { plural, table, x } from "../support/markdown.js";
import { startHost, withSystem } from "../support/systems.js";
import type { Scenario } from "../scenario.js";

export interface ProviderRow {
  name: string;
  sessions: number;
  turns: number;
  wallMs: number;
  /** null: the row has no time floor (slows). */
  floorMs: number | null;
  failedTurns: number;
  sent: number;
  refused: number;
  peakInFlight: number;
}

export interface ProviderLimitsResult {
  rows: ProviderRow[];
}

const CONCURRENCY = 8;
const REQUEST_MS = 500 + 7 * 20;

async function runTurns(client: HostClient, cwd: string, sessions: number, turns: number): Promise<number> {
  const ids = await Promise.all(Array.from({ length: sessions }, async () => (await client.newSession(cwd)).sessionId));
  let failed = 0;
  await Promise.all(
    ids.map(async (id, index) => {
      for (let turn = 0; turn < turns; turn++) {
        try {
          await client.prompt(id, `session ${index} turn ${turn}`);
        } catch {
          failed++;
        }
      }
    }),
  );
  return failed;
}

async function row(
  ctx: BenchContext,
  name: string,
  options: EmulatorOptions,
  hostArgs: string[],
  size: { sessions: number; turns: number },
  floorMs: (requests: number) => number | null,
): Promise<ProviderRow> {
  const provider = await ProviderEmulator.start(options);
  try {
    return await withSystem(startHost([...provider.hostArgs(), ...hostArgs]), async (system) => {
      const started = performance.now();
      const failedTurns = await runTurns(system.client, ctx.cwd, size.sessions, size.turns);
      const wallMs = performance.now() - started;
      ctx.log(`provider limits, ${name}: ${(wallMs / 1000).toFixed(1)} s, ${provider.refused} refused`);
      return {
        name,
        ...size,
        wallMs,
        floorMs: floorMs(size.sessions * size.turns),
        failedTurns,
        sent: provider.received,
        refused: provider.refused,
        peakInFlight: provider.peakInFlight,
      };
    });
  } finally {
    await provider.close();
  }
}

export async function providerLimits(ctx: BenchContext): Promise<ProviderLimitsResult> {
  const concurrency = ctx.quick ? { sessions: 30, turns: 2 } : { sessions: 100, turns: 3 };
  const rate = ctx.quick
    ? { sessions: 20, turns: 2, perWindow: 30, windowMs: 10_000 }
    : { sessions: 60, turns: 3, perWindow: 120, windowMs: 60_000 };
  const rows = [
    await row(
      ctx,
      "concurrency: 8 at once, Retry-After: 1",
      { concurrency: CONCURRENCY, retryAfter: { seconds: 1 }, firstTokenMs: 500, chunks: 8, chunkMs: 20 },
      [],
      concurrency,
      (requests) => (requests * REQUEST_MS) / CONCURRENCY,
    ),
    await row(
      ctx,
      `rate: ${rate.perWindow} requests per ${rate.windowMs / 1000} s`,
      { requestsPerWindow: rate.perWindow, windowMs: rate.windowMs, chunks: 2 },
      [],
      rate,
      (requests) => (Math.ceil(requests / rate.perWindow) - 1) * rate.windowMs,
    ),
    await row(
      ctx,
      "slows with load, --model-concurrency 4",
      { slowdownPerInFlightMs: 20, firstTokenMs: 100, chunks: 4, chunkMs: 10 },
      ["--model-concurrency", "4"],
      ctx.quick ? { sessions: 20, turns: 2 } : { sessions: 50, turns: 3 },
      () => null,
    ),
  ];
  return { rows };
}

export const scenario: Scenario<ProviderLimitsResult> = {
  order: 21,
  key: "providerLimits",
  flag: "provider-limits",
  title: "21. Provider limits: many sessions on one provider that says no, against the floor of its limits",
  run: providerLimits,
  section: (result) => [
    "Each row is one run: every session opened at once, then its turns one after another, all sessions at once, " +
      "against the provider emulator on loopback (`test/support/provider-emulator.ts`). The floor is what the " +
      "provider's own limits allow: requests × one request's time ÷ its concurrency, or the rate windows the requests " +
      "need. Refused: the requests the provider answered 429, of those it received.",
    "",
    table(
      ["provider", "sessions × turns", "wall s", "floor s", "wall/floor", "failed turns", "refused", "peak in flight"],
      result.rows.map((r) => [
        r.name,
        `${r.sessions} × ${r.turns}`,
        (r.wallMs / 1000).toFixed(1),
        r.floorMs === null ? "" : (r.floorMs / 1000).toFixed(1),
        r.floorMs === null || r.floorMs === 0 ? "" : x(r.wallMs / r.floorMs),
        String(r.failedTurns),
        `${r.refused} of ${plural(r.sent, "request")} (${((100 * r.refused) / Math.max(1, r.sent)).toFixed(1)}%)`,
        String(r.peakInFlight),
      ]),
    ),
  ],
};
