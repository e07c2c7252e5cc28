// Scenario 16: what tracing costs the host.
//   cost: host CPU per echo turn (the scripted model) and per model turn (the OpenAI-compatible provider against the
//         test server in a process of its own), tracing off and on with every span sampled, exported over OTLP/HTTP to
//         an endpoint in this process that takes each export and answers 200 (its work is not the host's). Each run
//         waits for the batch processor's next export and until the host is idle, so the exports are counted;
//   trouble: echo turns' p99 with the endpoint answering, down (connection refused), 5 s slow, answering 500, against
//         tracing off: what an exporter in trouble adds to a turn.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { benchPrompt } from "../model-prompts.js";
import { modelServer } from "../model-server-process.js";
import { cpuTicks, waitForIdle } from "../proc.js";
import { figures, ratio, summarize, type Figure } from "../stats.js";
import { sleep, startHost, withSystem } from "../systems.js";

const TICK_MS = 10;
const MODEL = "bench-model";
/** The batch processor's delay: an export a second at most (the SDK's default is 5 s, longer than a run). */
const EXPORT_EVERY_MS = 1000;
const SESSIONS = 10;

export interface TracingRow {
  turn: "echo" | "model";
  /** Host CPU per turn, ms. */
  off: Figure;
  on: Figure;
  /** on/off of the medians. */
  ratio: number;
}

export type Endpoint = "answering" | "down" | "slow" | "failing";

export interface TroubleRow {
  endpoint: Endpoint;
  p99: Figure;
  /** p99 with tracing on and the endpoint so, less p99 with tracing off (medians), ms. */
  addedP99: number;
}

export interface TracingResult {
  runs: number;
  sessions: number;
  turns: number;
  rows: TracingRow[];
  /** OTLP bytes the endpoint received per traced turn (warm-up turns included), in the last run. */
  exportedBytesPerTurn: { echo: number; model: number };
  offP99: Figure;
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

/** SESSIONS sessions, `turns` turns each, all sessions at once: host CPU ms per turn and the turns' latencies. */
function run(ctx: BenchContext, turns: number, args: string[], env: NodeJS.ProcessEnv | undefined) {
  return withSystem(startHost(args, "allow", env), async ({ client, pid }) => {
    const ids = await Promise.all(
      Array.from({ length: SESSIONS }, async () => {
        const { sessionId } = await client.newSession(ctx.cwd);
        await client.prompt(sessionId, "warm up");
        return sessionId;
      }),
    );
    await waitForIdle(pid);
    const ticks = cpuTicks(pid);
    const latencies: number[] = [];
    await Promise.all(
      ids.map(async (id) => {
        for (let i = 0; i < turns; i++) {
          const sent = performance.now();
          await client.prompt(id, benchPrompt(i));
          latencies.push(performance.now() - sent);
        }
      }),
    );
    // The last spans wait for the processor's next export: off and on wait alike.
    await sleep(EXPORT_EVERY_MS * 1.5);
    await waitForIdle(pid);
    return { cpuMs: ((cpuTicks(pid) - ticks) * TICK_MS) / (SESSIONS * turns), p99: summarize(latencies).p99 };
  });
}

export async function tracing(ctx: BenchContext): Promise<TracingResult> {
  const runs = ctx.quick ? 1 : 3;
  const turns = ctx.quick ? 20 : 50;
  const sink = await otlpSink();
  const server = await modelServer({ chunkChars: 9 });
  let exported = { echo: 0, model: 0 };
  try {
    const model = ["--model-provider", "openai-compatible", "--base-url", server.url, "--model", MODEL];
    const measured = await repeat(ctx, `tracing: ${SESSIONS} sessions × ${turns} turns`, runs, async () => {
      sink.behave("answering");
      const echoOff = await run(ctx, turns, [], undefined);
      const before = sink.bytes();
      const echoOn = await run(ctx, turns, [], traced(sink.endpoint));
      const echoBytes = sink.bytes() - before;
      const modelOff = await run(ctx, turns, model, undefined);
      const modelOn = await run(ctx, turns, model, traced(sink.endpoint));
      const tracedTurns = SESSIONS * (turns + 1);
      exported = { echo: echoBytes / tracedTurns, model: (sink.bytes() - before - echoBytes) / tracedTurns };
      const trouble: Partial<Record<Endpoint, number>> = { answering: echoOn.p99 };
      for (const how of ["down", "slow", "failing"] as const) {
        sink.behave(how);
        trouble[how] = (await run(ctx, turns, [], traced(sink.endpoint))).p99;
      }
      return {
        echoOff: echoOff.cpuMs,
        echoOn: echoOn.cpuMs,
        modelOff: modelOff.cpuMs,
        modelOn: modelOn.cpuMs,
        offP99: echoOff.p99,
        answering: trouble.answering!,
        down: trouble.down!,
        slow: trouble.slow!,
        failing: trouble.failing!,
      };
    });
    const fig = figures(measured, [
      "echoOff",
      "echoOn",
      "modelOff",
      "modelOn",
      "offP99",
      "answering",
      "down",
      "slow",
      "failing",
    ] as const);
    return {
      runs,
      sessions: SESSIONS,
      turns,
      rows: [
        { turn: "echo", off: fig.echoOff, on: fig.echoOn, ratio: ratio(fig.echoOn, fig.echoOff) },
        { turn: "model", off: fig.modelOff, on: fig.modelOn, ratio: ratio(fig.modelOn, fig.modelOff) },
      ],
      exportedBytesPerTurn: exported,
      offP99: fig.offP99,
      trouble: (["answering", "down", "slow", "failing"] as const).map((endpoint) => ({
        endpoint,
        p99: fig[endpoint],
        addedP99: fig[endpoint].median - fig.offP99.median,
      })),
    };
  } finally {
    await server.close();
    await sink.close();
  }
}
