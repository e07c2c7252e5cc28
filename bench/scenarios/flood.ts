// Scenario 12: fairness between remote connections. While one connection's session answers echo prompts one after
// another, another WebSocket sends 50,000 requests at once (a method the host does not have: each is answered with
// an error). The echo's latency while the flood is being answered against its quiet value on the same host; the goal
// is a p99 within 2× the quiet one.
import { WebSocket } from "ws";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { startListeningHost } from "../support/remote-host.js";
import {
  floodedEchoes,
  floodedEchoFigures,
  type FloodedEchoes,
  type FloodedEchoFigures,
} from "../support/flooded-echoes.js";
import { figure, type Figure } from "../support/stats.js";
import type { HostClient } from "../../src/client/index.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

export interface FloodResult extends FloodedEchoFigures {
  runs: number;
  requests: number;
  /** How long the flood took to be answered (s). */
  floodS: Figure;
}

interface RunMeasure extends FloodedEchoes {
  floodS: number;
}

export async function flood(ctx: BenchContext): Promise<FloodResult> {
  const requests = ctx.quick ? 10_000 : 50_000;
  const runs = ctx.quick ? 1 : 3;
  const quietEchoes = ctx.quick ? 50 : 300;
  const measured = await repeat(ctx, `flood of ${requests}`, runs, async () => {
    const host = await startListeningHost(["--log-level", "info"]);
    try {
      return await measureOnce(host.client, host.wsUrl, ctx.cwd, requests, quietEchoes);
    } finally {
      await host.dispose();
    }
  });
  return { runs, requests, ...floodedEchoFigures(measured), floodS: figure(measured.map((m) => m.floodS)) };
}

async function measureOnce(
  client: HostClient,
  wsUrl: string,
  cwd: string,
  requests: number,
  quietEchoes: number,
): Promise<RunMeasure> {
  const { sessionId } = await client.newSession(cwd);
  const echo = async () => {
    const sent = performance.now();
    const result = await client.prompt(sessionId, "ping");
    if (result.text !== "You said: ping") throw new Error(`flood: unexpected echo ${JSON.stringify(result.text)}`);
    return performance.now() - sent;
  };
  for (let i = 0; i < 20; i++) await echo();
  const quiet: number[] = [];
  for (let i = 0; i < quietEchoes; i++) quiet.push(await echo());

  const flooder = new WebSocket(wsUrl);
  await new Promise<void>((resolve, reject) => flooder.once("open", resolve).once("error", reject));
  let answered = 0;
  const initialized = new Promise<void>((resolve) => flooder.once("message", () => resolve()));
  flooder.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: 1, clientCapabilities: {} },
    }),
  );
  await initialized;
  flooder.on("message", () => answered++);
  const started = performance.now();
  for (let id = 1; id <= requests; id++) flooder.send(JSON.stringify({ jsonrpc: "2.0", id, method: "x" }));
  const flooded: number[] = [];
  while (answered < requests) flooded.push(await echo());
  const floodS = (performance.now() - started) / 1000;
  flooder.close();
  return { ...floodedEchoes(quiet, flooded), floodS };
}

export const scenario: Scenario<FloodResult> = {
  order: 13,
  key: "flood",
  flag: "flood",
  title: "13. Remote: one connection floods, another echoes",
  run: flood,
  section: (f) => [
    `${plural(f.runs, "run")}. One host serving \`--listen 127.0.0.1:0\`: a session answers echo prompts one after another over one WebSocket, ` +
      `quiet, then while another WebSocket's ${f.requests} requests (sent at once, each answered with an error) are being answered. ` +
      "The goal: flooded p99 within 2× quiet.",
    "",
    table(
      [
        "quiet p50",
        "quiet p99",
        "flooded p50",
        "flooded p99",
        "p99 flooded/quiet",
        "echoes during",
        "flood answered in s",
      ],
      [
        [
          fmt(f.quiet.p50),
          fmt(f.quiet.p99),
          fmt(f.flooded.p50),
          fmt(f.flooded.p99),
          fmt(f.p99Ratio),
          fmt(f.flooded.echoes, 0),
          fmt(f.floodS),
        ],
      ],
    ),
  ],
};
