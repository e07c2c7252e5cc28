// Scenario 16: what tracing costs the host.
//   cost: host CPU per echo turn (the scripted model) and per model turn (the OpenAI-compatible provider against the
//         test server in a process of its own), tracing off and on with every span sampled, exported over OTLP/HTTP to
//         an endpoint in this process that takes each export and answers 200 (its work is not the host's). The host
//         with tracing off and the one with it on run side by side, at once, so the machine's drift falls on both;
//         each waits for the batch processor's next export and until it is idle, so the exports are counted;
//   trouble: echo turns' p99 with the endpoint answering, down (connection refused), 5 s slow, answering 500, against
//         a host with tracing off beside it, at once, two sessions each: what an exporter in trouble adds to a turn.
//         Each host alone, one after another, the p99 of a host with tracing off moved 37-134 ms between consecutive
//         runs of one build.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { benchPrompt } from "../support/model-prompts.js";
import { modelServer } from "../support/model-server-process.js";
import { cpuTicks, waitForIdle } from "../support/proc.js";
import { figures, median, summarize, type Figure } from "../support/stats.js";
import { sleep, startHost } from "../support/systems.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const TICK_MS = 10;
const MODEL = "bench-model";
/** The batch processor's delay: an export a second at most (the SDK's default is 5 s, longer than a run). */
const EXPORT_EVERY_MS = 1000;
const SESSIONS = 10;
/**
 * Sessions a host for the trouble pairs: two hosts of 10 sessions each keep both cores busy, and their p99 is the CPU
 * queue's: pairs of one build differed by up to ±10 ms. Two sessions each leave the cores room.
 */
const TROUBLE_SESSIONS = 2;

export interface TracingRow {
  turn: "echo" | "model";
  /** Host CPU per turn, ms. */
  off: Figure;
  on: Figure;
  /** The median of the runs' on/off. */
  ratio: number;
}

const ENDPOINTS = ["answering", "down", "slow", "failing"] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

export interface TroubleRow {
  endpoint: Endpoint;
  /** p99 of the host with tracing off, and of the one beside it with tracing on and the endpoint so, ms. */
  off: Figure;
  on: Figure;
  /** The median of the runs' on - off, ms. */
  addedP99: number;
}

export interface TracingResult {
  runs: number;
  sessions: number;
  /** Turns a session for the cost rows. */
  costTurns: number;
  /** Sessions a host and turns a session for each trouble pair. */
  troubleSessions: number;
  turns: number;
  rows: TracingRow[];
  /** OTLP bytes the endpoint received per traced turn (warm-up turns included), in the last run. */
  exportedBytesPerTurn: { echo: number; model: number };
  trouble: TroubleRow[];
}

interface Sink {
  endpoint: string;
  bytes(): number;
  behave(how: Endpoint): void;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An OTLP endpoint that takes each export; or is slow, or answers 500. "down" is a port nobody listens on. */
async function otlpSink(): Promise<Sink> {
  let bytes = 0;
  let how: Endpoint = "answering";
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => {
      const answer = () =>
        res.writeHead(how === "failing" ? 500 : 200, { "content-type": "application/x-protobuf" }).end();
      if (how === "slow") setTimeout(answer, 5_000);
      else answer();
    });
  });
  const endpoint = await listen(server);
  const closedPort = createServer();
  const down = await listen(closedPort);
  await new Promise<void>((resolve) => closedPort.close(() => resolve()));
  return {
    get endpoint() {
      return how === "down" ? down : endpoint;
    },
    bytes: () => bytes,
    behave: (next) => (how = next),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const traced = (endpoint: string) => ({
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
  OTEL_TRACES_SAMPLER: "always_on",
  OTEL_BSP_SCHEDULE_DELAY: String(EXPORT_EVERY_MS),
});

interface Measured {
  /** Host CPU per turn, ms. */
  cpuMs: number;
  p99: number;
}

/**
 * One host for each of `envs`, all at once: `sessions` sessions each, `turns` turns a session, every session of every
 * host at once; each host's CPU per turn and its turns' p99. Hosts measured together share the machine's drift: run
 * one after another, hosts of the same build differed by up to 1.76× here, and a 1.1× bound drowned in it.
 */
async function measureTogether(
  ctx: BenchContext,
  sessions: number,
  turns: number,
  args: string[],
  envs: Array<NodeJS.ProcessEnv | undefined>,
): Promise<Measured[]> {
  const systems = await Promise.all(envs.map((env) => startHost(args, "allow", env)));
  try {
    const ids = await Promise.all(
      systems.map(({ client }) =>
        Promise.all(
          Array.from({ length: sessions }, async () => {
            const { sessionId } = await client.newSession(ctx.cwd);
            await client.prompt(sessionId, "warm up");
            return sessionId;
          }),
        ),
      ),
    );
    await Promise.all(systems.map(({ pid }) => waitForIdle(pid)));
    const ticks = systems.map(({ pid }) => cpuTicks(pid));
    const latencies = await Promise.all(
      systems.map(async ({ client }, host) => {
        const taken: number[] = [];
        await Promise.all(
          ids[host]!.map(async (id) => {
            for (let i = 0; i < turns; i++) {
              const sent = performance.now();
              await client.prompt(id, benchPrompt(i));
              taken.push(performance.now() - sent);
            }
          }),
        );
        return taken;
      }),
    );
    // The last spans wait for the processor's next export: off and on wait alike.
    await sleep(EXPORT_EVERY_MS * 1.5);
    await Promise.all(systems.map(({ pid }) => waitForIdle(pid)));
    return systems.map(({ pid }, host) => ({
      cpuMs: ((cpuTicks(pid) - ticks[host]!) * TICK_MS) / (sessions * turns),
      p99: summarize(latencies[host]!).p99,
    }));
  } finally {
    await Promise.all(systems.map((system) => system.dispose(10_000)));
  }
}

/** The median of each run's on/off: the two were measured together, so each run's pair is what compares. */
function pairedRatio(on: Figure, off: Figure): number {
  return median(on.runs.map((value, run) => value / off.runs[run]!));
}

/** Tracing off and on measured together: [off, on]. */
async function offAndOn(
  ctx: BenchContext,
  sessions: number,
  turns: number,
  args: string[],
  endpoint: string,
): Promise<Measured[]> {
  return measureTogether(ctx, sessions, turns, args, [undefined, traced(endpoint)]);
}

export async function tracing(ctx: BenchContext): Promise<TracingResult> {
  const runs = ctx.quick ? 1 : 3;
  // Turns a session in a trouble pair: a host's p99 is then its 10th slowest of 2 × 500 turns.
  const turns = ctx.quick ? 5 : 500;
  // A host's CPU per turn moves with how its threads' work batches, which moves with the machine's load: over 50
  // turns a session, pairs run at once still differed by 1.2-1.8×; over 300 they agreed within ±5 %.
  const costTurns = ctx.quick ? 5 : 300;
  const sessions = ctx.quick ? 4 : SESSIONS;
  // A quick run tries the endpoint down; the full run also answering, slow and failing.
  const endpoints: readonly Endpoint[] = ctx.quick ? ["down"] : ENDPOINTS;
  const sink = await otlpSink();
  const server = await modelServer({ chunkChars: 9 });
  let exported = { echo: 0, model: 0 };
  try {
    const model = ["--model-provider", "openai-compatible", "--base-url", server.url, "--model", MODEL];
    const measured = await repeat(ctx, `tracing: ${sessions} sessions × ${costTurns} turns`, runs, async () => {
      sink.behave("answering");
      const before = sink.bytes();
      const [echoOff, echoOn] = await offAndOn(ctx, sessions, costTurns, [], sink.endpoint);
      const echoBytes = sink.bytes() - before;
      const [modelOff, modelOn] = await offAndOn(ctx, sessions, costTurns, model, sink.endpoint);
      const tracedTurns = sessions * (costTurns + 1);
      exported = { echo: echoBytes / tracedTurns, model: (sink.bytes() - before - echoBytes) / tracedTurns };
      // Latencies with the endpoint in trouble, against tracing off beside it.
      const trouble: Partial<Record<`${Endpoint}${"Off" | "On"}`, number>> = {};
      for (const how of endpoints) {
        sink.behave(how);
        const [off, on] = await offAndOn(ctx, TROUBLE_SESSIONS, turns, [], sink.endpoint);
        trouble[`${how}Off`] = off!.p99;
        trouble[`${how}On`] = on!.p99;
      }
      return {
        echoOff: echoOff!.cpuMs,
        echoOn: echoOn!.cpuMs,
        modelOff: modelOff!.cpuMs,
        modelOn: modelOn!.cpuMs,
        ...(trouble as Record<`${Endpoint}${"Off" | "On"}`, number>),
      };
    });
    const fig = figures(measured, [
      "echoOff",
      "echoOn",
      "modelOff",
      "modelOn",
      ...endpoints.flatMap((how) => [`${how}Off`, `${how}On`] as const),
    ]);
    return {
      runs,
      sessions,
      troubleSessions: TROUBLE_SESSIONS,
      costTurns,
      turns,
      rows: [
        { turn: "echo", off: fig.echoOff, on: fig.echoOn, ratio: pairedRatio(fig.echoOn, fig.echoOff) },
        { turn: "model", off: fig.modelOff, on: fig.modelOn, ratio: pairedRatio(fig.modelOn, fig.modelOff) },
      ],
      exportedBytesPerTurn: exported,
      trouble: endpoints.map((endpoint) => {
        const off = fig[`${endpoint}Off`];
        const on = fig[`${endpoint}On`];
        return { endpoint, off, on, addedP99: median(on.runs.map((value, run) => value - off.runs[run]!)) };
      }),
    };
  } finally {
    await server.close();
    await sink.close();
  }
}

export const scenario: Scenario<TracingResult> = {
  order: 16,
  key: "tracing",
  flag: "tracing",
  title: "16. What tracing costs",
  run: tracing,
  section: (f) => [
    `${plural(f.runs, "run")}; each: a host with tracing off and one with it on side by side, at once (the machine's drift falls on both), ${f.sessions} sessions × ${f.costTurns} turns each, all at once; host CPU per turn (from /proc, until the host is idle after them, so the exports are counted). ` +
      "on: OTEL_TRACES_EXPORTER=otlp, every span sampled, exported over OTLP/HTTP to an endpoint in the bench process; echo: the scripted model (a turn, a chat span); " +
      `model: the OpenAI-compatible provider against the test server. OTLP bytes per traced turn: echo ${f.exportedBytesPerTurn.echo.toFixed(0)}, model ${f.exportedBytesPerTurn.model.toFixed(0)}.`,
    "",
    table(
      ["turn", "off ms", "on ms", "on/off", "goal"],
      f.rows.map((row) => [row.turn, fmt(row.off), fmt(row.on), x(row.ratio), "≤ 1.1×"]),
    ),
    "",
    `An exporter in trouble: echo turns' p99 with tracing on and the endpoint answering, down (connection refused), 5 s slow, answering 500, each beside a host with tracing off, at once, ${f.troubleSessions} sessions × ${f.turns} turns each; added: the median of the runs' on - off.`,
    "",
    table(
      ["endpoint", "off p99 ms", "on p99 ms", "added to p99 ms", "goal"],
      f.trouble.map((row) => [row.endpoint, fmt(row.off), fmt(row.on), row.addedP99.toFixed(2), "≤ 5 ms"]),
    ),
  ],
};
