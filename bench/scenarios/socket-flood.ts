// Scenario 17: sockets that never authenticate. A host with a tokens file and --max-connections 64; a session answers
// echo prompts one after another over one authenticated WebSocket, quiet, then while another process holds open
// from one address 200 silent sockets, 60 slowloris ones and 5 refused requests trickling their bodies, each renewed
// as soon as the host closes it. Measured once the flood has been renewed past its first sockets: the echo's p99
// against the quiet one (goal ≤ 1.5×), then new authenticated WebSocket connections and HTTP requests (goal: p99
// ≤ 1 s) and /healthz (goal: 200 every time).
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { startListeningHost, type ListeningHost } from "../support/remote-host.js";
import {
  floodedEchoes,
  floodedEchoFigures,
  type FloodedEchoes,
  type FloodedEchoFigures,
} from "../support/flooded-echoes.js";
import { figure, summarize, type Figure } from "../support/stats.js";
import { HostClient } from "../../src/client/index.js";
import { hashToken, newToken } from "../../src/remote/tokens.js";
import { ACP_INITIALIZE, acpHeaders, httpOnce } from "../../test/support/http-once.js";
import { waitFor } from "../../test/support/tools.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const FLOOD_CLI = fileURLToPath(new URL("../../test/support/socket-flood-cli.js", import.meta.url));
const FLOOD_ADDRESS = "127.0.0.2";
/** Silent sockets, slowloris ones, and refused requests trickling their bodies. */
const FLOOD = [200, 60, 5] as const;
const FLOOD_SOCKETS = FLOOD[0] + FLOOD[1] + FLOOD[2];
const CLIENTS = 20;

export interface SocketFloodResult extends FloodedEchoFigures {
  runs: number;
  webSocketConnectP99: Figure;
  httpRequestP99: Figure;
  /** /healthz answers other than 200, over every run. */
  healthFailures: number;
  /** The flood's sockets the host closed per second while the echoes were measured. */
  closedPerSecond: Figure;
}

interface RunMeasure extends FloodedEchoes {
  webSocketConnectP99: number;
  httpRequestP99: number;
  healthFailures: number;
  closedPerSecond: number;
}

export async function socketFlood(ctx: BenchContext): Promise<SocketFloodResult> {
  const runs = ctx.quick ? 1 : 3;
  const echoes = ctx.quick ? 100 : 600;
  const token = newToken();
  const tokensFile = join(ctx.cwd, "socket-flood-tokens");
  writeFileSync(tokensFile, `bench ${hashToken(token)}\n`);
  const hostArgs = ["--tokens-file", tokensFile, "--max-connections", "64", "--max-connections-per-tenant", "64"];
  const measured = await repeat(ctx, "socket flood", runs, async () => {
    const host = await startListeningHost([...hostArgs, "--log-level", "info"], { token });
    try {
      return await measureOnce(host, token, ctx.cwd, echoes);
    } finally {
      await host.dispose();
    }
  });
  return {
    runs,
    ...floodedEchoFigures(measured),
    webSocketConnectP99: figure(measured.map((m) => m.webSocketConnectP99)),
    httpRequestP99: figure(measured.map((m) => m.httpRequestP99)),
    healthFailures: measured.reduce((total, m) => total + m.healthFailures, 0),
    closedPerSecond: figure(measured.map((m) => m.closedPerSecond)),
  };
}

async function measureOnce(host: ListeningHost, token: string, cwd: string, echoes: number): Promise<RunMeasure> {
  const { client } = host;
  const { sessionId } = await client.newSession(cwd);
  const echo = async () => {
    const sent = performance.now();
    const result = await client.prompt(sessionId, "ping");
    if (result.text !== "You said: ping")
      throw new Error(`socket flood: unexpected echo ${JSON.stringify(result.text)}`);
    return performance.now() - sent;
  };
  for (let i = 0; i < 20; i++) await echo();
  const quiet: number[] = [];
  for (let i = 0; i < echoes; i++) quiet.push(await echo());

  const attacker = spawn(process.execPath, [FLOOD_CLI, host.httpUrl, FLOOD_ADDRESS, ...FLOOD.map(String)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let closed = 0;
  createInterface({ input: attacker.stdout! }).on("line", (line) => {
    if (line.startsWith("closed so far ")) closed = Number(line.slice("closed so far ".length));
  });
  try {
    await waitFor("the flood renewed past its first sockets", () => (closed > FLOOD_SOCKETS ? true : null), 60_000);
    const closedBefore = closed;
    const started = performance.now();
    const flooded: number[] = [];
    for (let i = 0; i < echoes; i++) flooded.push(await echo());
    const closedPerSecond = ((closed - closedBefore) * 1000) / (performance.now() - started);
    const webSocket: number[] = [];
    const http: number[] = [];
    let healthFailures = 0;
    const health = host.httpUrl.replace(/\/acp$/, "/healthz");
    for (let i = 0; i < CLIENTS; i++) {
      let sent = performance.now();
      const other = await HostClient.connect(host.wsUrl, { token });
      webSocket.push(performance.now() - sent);
      await other.dispose();
      sent = performance.now();
      const answer = await httpOnce(host.httpUrl, "POST", acpHeaders(token), ACP_INITIALIZE);
      http.push(performance.now() - sent);
      if (answer.status !== 200) throw new Error(`socket flood: an authenticated initialize got ${answer.status}`);
      if ((await httpOnce(health, "GET", {})).status !== 200) healthFailures++;
    }
    return {
      ...floodedEchoes(quiet, flooded),
      webSocketConnectP99: summarize(webSocket).p99,
      httpRequestP99: summarize(http).p99,
      healthFailures,
      closedPerSecond,
    };
  } finally {
    attacker.stdin!.end();
    if (attacker.exitCode === null) await new Promise((resolve) => attacker.once("exit", resolve));
  }
}

export const scenario: Scenario<SocketFloodResult> = {
  order: 17,
  key: "socketFlood",
  flag: "socket-flood",
  title: "17. Sockets that never authenticate",
  run: socketFlood,
  section: (f) => [
    `${plural(f.runs, "run")}. A host with a tokens file and \`--max-connections 64\`: a session answers echo prompts one after another over an authenticated WebSocket, ` +
      "quiet, then while another process holds open from one address 200 silent sockets, 60 slowloris ones and 5 refused requests trickling their bodies, " +
      "each renewed as soon as the host closes it (measured once the flood has been renewed past its first sockets); then 20 new authenticated WebSocket " +
      `connections, 20 HTTP initialize requests and 20 \`/healthz\` requests under the same flood (answers other than 200: ${f.healthFailures}). ` +
      `The flood's sockets closed by the host: ${fmt(f.closedPerSecond, 0)} a second.`,
    "",
    table(
      ["measure", "figure", "goal"],
      [
        ["echo p50 quiet / flooded ms", `${fmt(f.quiet.p50)} / ${fmt(f.flooded.p50)}`, ""],
        ["echo p99 quiet / flooded ms", `${fmt(f.quiet.p99)} / ${fmt(f.flooded.p99)}`, ""],
        ["echo p99 flooded / quiet", fmt(f.p99Ratio), "≤ 1.5×"],
        ["WebSocket connect p99 ms", fmt(f.webSocketConnectP99), "≤ 1000"],
        ["HTTP request p99 ms", fmt(f.httpRequestP99), "≤ 1000"],
      ],
    ),
  ],
};
