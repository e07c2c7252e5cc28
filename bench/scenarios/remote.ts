// Scenario 8: S sessions × K echo prompts on one host build, driven over stdio and over WebSocket (--listen on
// loopback), all sessions at once; websocket/stdio is the ratio of the medians.
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { startListeningHost } from "../support/remote-host.js";
import { figure, ratio, type Figure } from "../support/stats.js";
import { echoPrompts, openSessions, startHost, withSystem } from "../support/systems.js";
import type { HostClient } from "../../src/client/index.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

type Transport = "stdio" | "websocket";
const TRANSPORTS: Transport[] = ["stdio", "websocket"];

export interface RemoteResult {
  runs: number;
  sessions: number;
  promptsPerSession: number;
  stdio: TransportFigures;
  websocket: TransportFigures;
  /** websocket ÷ stdio of the medians. */
  ratio: { promptsPerSecond: number; p50: number; p99: number };
}

export interface TransportFigures {
  promptsPerSecond: Figure;
  p50: Figure;
  p99: Figure;
}

interface RunMeasure {
  promptsPerSecond: number;
  p50: number;
  p99: number;
}

export async function remote(ctx: BenchContext): Promise<RemoteResult> {
  const sessions = ctx.quick ? 30 : 100;
  const prompts = ctx.quick ? 3 : 20;
  const runs = ctx.quick ? 1 : 3;
  // Both at info: the listening host logs its URL at info.
  const hostArgs = ["--max-live-workers", String(sessions + 8), "--log-level", "info"];
  const measured: Record<Transport, RunMeasure[]> = { stdio: [], websocket: [] };
  await repeat(ctx, `remote S=${sessions} K=${prompts}`, runs, async (rep) => {
    // Alternate which transport goes first so slow drift of the machine does not favour one of them.
    const order = rep % 2 === 0 ? TRANSPORTS : [...TRANSPORTS].reverse();
    for (const transport of order) {
      const measure = (client: HostClient) => measureOnce(ctx, client, sessions, prompts);
      if (transport === "stdio") {
        measured.stdio.push(await withSystem(startHost(hostArgs), ({ client }) => measure(client)));
      } else {
        const host = await startListeningHost(hostArgs);
        try {
          measured.websocket.push(await measure(host.client));
        } finally {
          await host.dispose();
        }
      }
    }
  });
  const fig = (transport: Transport): TransportFigures => ({
    promptsPerSecond: figure(measured[transport].map((m) => m.promptsPerSecond)),
    p50: figure(measured[transport].map((m) => m.p50)),
    p99: figure(measured[transport].map((m) => m.p99)),
  });
  const stdio = fig("stdio");
  const websocket = fig("websocket");
  return {
    runs,
    sessions,
    promptsPerSession: prompts,
    stdio,
    websocket,
    ratio: {
      promptsPerSecond: ratio(websocket.promptsPerSecond, stdio.promptsPerSecond),
      p50: ratio(websocket.p50, stdio.p50),
      p99: ratio(websocket.p99, stdio.p99),
    },
  };
}

async function measureOnce(
  ctx: BenchContext,
  client: HostClient,
  sessions: number,
  prompts: number,
): Promise<RunMeasure> {
  const ids = await openSessions(client, sessions, ctx.cwd);
  const { promptsPerSecond, p50, p99 } = await echoPrompts(client, ids, prompts, "remote");
  return { promptsPerSecond, p50, p99 };
}

export const scenario: Scenario<RemoteResult> = {
  order: 8,
  key: "remote",
  flag: "remote",
  title: "8. Remote: WebSocket against stdio",
  run: remote,
  section: (r) => [
    `${plural(r.runs, "run")}. One host build, ${r.sessions} sessions × ${r.promptsPerSession} echo prompts, all sessions at once: over stdio, and over ` +
      "WebSocket to the same host serving `--listen 127.0.0.1:0` (one connection, no TLS, no tokens); websocket/stdio is the ratio of the medians.",
    "",
    table(
      ["transport", "prompts/s", "p50", "p99"],
      [
        ["stdio", fmt(r.stdio.promptsPerSecond), fmt(r.stdio.p50), fmt(r.stdio.p99)],
        ["WebSocket", fmt(r.websocket.promptsPerSecond), fmt(r.websocket.p50), fmt(r.websocket.p99)],
        ["websocket/stdio", x(r.ratio.promptsPerSecond), x(r.ratio.p50), x(r.ratio.p99)],
      ],
    ),
  ],
};
