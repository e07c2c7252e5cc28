// Scenario 4: 48 sessions prompting at a steady pace while one session spins its worker's CPU for 5 s and another
// prints 50 MB from bash; their p99 against the same window without the noise, and the main thread's event-loop lag
// (from the host's `_host/stats`).
import type { HostClient } from "../../src/client/index.js";
import { bashScript, probeBash } from "../support/bash.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { figure, summarize, type Figure } from "../support/stats.js";
import { openSessions, sleep, startHost, withSystem } from "../support/systems.js";
import { fmt, plural, scaled, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const PACE_MS = 200;

/** The full run's sizes, and the quick run's: fewer victims, shorter windows, less printed. */
interface Sizes {
  victims: number;
  /** How long each window lasts, and the spinner spins. */
  windowMs: number;
  printBytes: number;
}
const FULL: Sizes = { victims: 48, windowMs: 5000, printBytes: 50 * 1024 * 1024 };
const QUICK: Sizes = { victims: 16, windowMs: 1000, printBytes: 10 * 1024 * 1024 };

interface Window {
  p50: number;
  p99: number;
  prompts: number;
  lagP99: number;
  lagMax: number;
}

export interface NoisyResult {
  runs: number;
  victims: number;
  paceMs: number;
  windowMs: number;
  quiet: Record<keyof Window, Figure>;
  /** Only the spinning session, only the printing one, then both (the window the goal is about). */
  spinOnly: Record<keyof Window, Figure>;
  printOnly: Record<keyof Window, Figure>;
  noisy: Record<keyof Window, Figure>;
  spinner: { promptMs: Figure; stopReasons: string[] };
  /** Null when the bash tool is not available (see `printerSkipped`). */
  printer: { promptMs: Figure; bytesToClient: Figure; status: string[] } | null;
  printerSkipped: string | null;
}

export async function noisyNeighbour(ctx: BenchContext): Promise<NoisyResult> {
  const runs = ctx.quick ? 1 : 3;
  const sizes = ctx.quick ? QUICK : FULL;
  let printerSkipped: string | null = null;
  const results = await repeat(ctx, "noisy neighbour", runs, () =>
    withSystem(startHost(["--allow-fault-injection", "--default-mode", "auto"]), async ({ client, pid }) => {
      const ids = await openSessions(client, sizes.victims + 2, ctx.cwd);
      const victims = ids.slice(0, sizes.victims);
      const [spinner, printer] = ids.slice(sizes.victims) as [string, string];
      printerSkipped = await probeBash(client, printer);
      await waitForIdle(pid);

      await client.stats({ resetEventLoopDelay: true });
      const quiet = await window(client, victims, sizes.windowMs);

      const spin = () => {
        const started = performance.now();
        return client
          .prompt(spinner, `/script [{"say":"spinning"},{"spin_ms":${sizes.windowMs}}]`)
          .then((r) => ({ ms: performance.now() - started, stop: r.stopReason }));
      };
      const printing = () =>
        printerSkipped === null ? print(client, printer, sizes.printBytes) : Promise.resolve(null);
      // Each noise alone, then both: which of them costs the quiet sessions what.
      const spinOnly = (await noisyWindow(client, victims, sizes.windowMs, spin)).window;
      const printOnly = (await noisyWindow(client, victims, sizes.windowMs, printing)).window;
      const both = await noisyWindow(client, victims, sizes.windowMs, () => Promise.all([spin(), printing()]));
      const [spun, printed] = both.made;
      return { quiet, noisy: both.window, spinOnly, printOnly, spin: spun, printed };
    }),
  );
  const windows = (pick: "quiet" | "spinOnly" | "printOnly" | "noisy") => {
    const list = results.map((r) => r[pick]);
    return {
      p50: figure(list.map((w) => w.p50)),
      p99: figure(list.map((w) => w.p99)),
      prompts: figure(list.map((w) => w.prompts)),
      lagP99: figure(list.map((w) => w.lagP99)),
      lagMax: figure(list.map((w) => w.lagMax)),
    };
  };
  const printed = results.map((r) => r.printed).filter((p) => p !== null);
  return {
    runs,
    victims: sizes.victims,
    paceMs: PACE_MS,
    windowMs: sizes.windowMs,
    quiet: windows("quiet"),
    spinOnly: windows("spinOnly"),
    printOnly: windows("printOnly"),
    noisy: windows("noisy"),
    spinner: { promptMs: figure(results.map((r) => r.spin.ms)), stopReasons: results.map((r) => r.spin.stop) },
    printer:
      printed.length === 0
        ? null
        : {
            promptMs: figure(printed.map((p) => p.ms)),
            bytesToClient: figure(printed.map((p) => p.bytes)),
            status: printed.map((p) => p.status),
          },
    printerSkipped,
  };
}

/** A window with noise made beside it; the noise's own end is awaited before the next window. */
async function noisyWindow<T>(
  client: HostClient,
  victims: string[],
  windowMs: number,
  noise: () => Promise<T>,
): Promise<{ window: Window; made: T }> {
  await client.stats({ resetEventLoopDelay: true });
  const making = noise();
  const measured = await window(client, victims, windowMs);
  return { window: measured, made: await making };
}

/** Every victim prompts, then waits PACE_MS, until windowMs have passed; the host's lag is read at the end. */
async function window(client: HostClient, victims: string[], windowMs: number): Promise<Window> {
  const latencies: number[] = [];
  const until = performance.now() + windowMs;
  await Promise.all(
    victims.map(async (id, i) => {
      await sleep((PACE_MS * i) / victims.length); // spread the sessions over the pace interval
      while (performance.now() < until) {
        const sent = performance.now();
        await client.prompt(id, "steady");
        latencies.push(performance.now() - sent);
        await sleep(PACE_MS);
      }
    }),
  );
  const stats = await client.stats({ resetEventLoopDelay: true });
  const { p50, p99 } = summarize(latencies);
  return {
    p50,
    p99,
    prompts: latencies.length,
    lagP99: stats.eventLoopDelayMs.p99,
    lagMax: stats.eventLoopDelayMs.max,
  };
}

async function print(
  client: HostClient,
  sessionId: string,
  printBytes: number,
): Promise<{ ms: number; bytes: number; status: string }> {
  const started = performance.now();
  let bytes = 0;
  const result = await client.prompt(sessionId, bashScript(`yes | head -c ${printBytes}`), {
    onUpdate: (update) => {
      if (update.sessionUpdate !== "tool_call_update") return;
      for (const item of update.content ?? [])
        if (item.type === "content" && item.content.type === "text") bytes += item.content.text.length;
    },
  });
  return { ms: performance.now() - started, bytes, status: result.toolCalls[0]?.status ?? "none" };
}

export const scenario: Scenario<NoisyResult> = {
  order: 4,
  key: "noisyNeighbour",
  flag: "noisy-neighbour",
  title: "4. Noisy neighbour",
  run: noisyNeighbour,
  section: (n) => [
    `${plural(n.runs, "run")}. ${n.victims} sessions each send an echo prompt every ${n.paceMs} ms for ${n.windowMs / 1000} s; in the noisy window one ` +
      `session spins its worker's CPU for ${n.windowMs / 1000} s` +
      (n.printer ? " and another prints 50 MB from bash" : "") +
      ". Event-loop lag is the host main thread's (monitorEventLoopDelay via `_host/stats`).",
    "",
    table(
      ["window", "prompts", "p50", "p99", "event-loop lag p99", "lag max"],
      [
        [
          "quiet",
          fmt(n.quiet.prompts, 0),
          fmt(n.quiet.p50),
          fmt(n.quiet.p99),
          fmt(n.quiet.lagP99),
          fmt(n.quiet.lagMax),
        ],
        [
          "spinning session only",
          fmt(n.spinOnly.prompts, 0),
          fmt(n.spinOnly.p50),
          fmt(n.spinOnly.p99),
          fmt(n.spinOnly.lagP99),
          fmt(n.spinOnly.lagMax),
        ],
        [
          "printing session only",
          fmt(n.printOnly.prompts, 0),
          fmt(n.printOnly.p50),
          fmt(n.printOnly.p99),
          fmt(n.printOnly.lagP99),
          fmt(n.printOnly.lagMax),
        ],
        [
          "noisy (both)",
          fmt(n.noisy.prompts, 0),
          fmt(n.noisy.p50),
          fmt(n.noisy.p99),
          fmt(n.noisy.lagP99),
          fmt(n.noisy.lagMax),
        ],
      ],
    ),
    "",
    `Spinning session: its prompt took ${fmt(n.spinner.promptMs)} ms (${[...new Set(n.spinner.stopReasons)].join(", ")}).` +
      (n.printer
        ? ` Printing session: ${fmt(n.printer.promptMs)} ms, ${fmt(scaled(n.printer.bytesToClient, 1e-6))} MB of output reached the client (${[...new Set(n.printer.status)].join(", ")}).`
        : ` The 50 MB bash printer was skipped: ${n.printerSkipped}.`),
  ],
};
