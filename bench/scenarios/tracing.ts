// Scenario 16: what tracing costs the host. Host CPU per echo turn (the scripted model) and per model turn (the
// OpenAI-compatible provider against the test server in a process of its own), with tracing off and with it on and
// every span sampled, exported over OTLP/HTTP to an endpoint in this process that takes each export and answers 200
// (the receiver's own work is not the host's). Runs alternate off and on; each waits for the batch processor's next
// export and until the host is idle after its turns, so the exports the turns caused are counted in them.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { benchPrompt } from "../model-prompts.js";
import { modelServer } from "../model-server-process.js";
import { cpuTicks, waitForIdle } from "../proc.js";
import { figures, ratio, type Figure } from "../stats.js";
import { sleep, startHost, withSystem } from "../systems.js";

const TICK_MS = 10;
const MODEL = "bench-model";
/** The batch processor's delay: an export a second at most (the SDK's default is 5 s, longer than a run). */
const EXPORT_EVERY_MS = 1000;

export interface TracingRow {
  turn: "echo" | "model";
  /** Host CPU per turn, ms. */
  off: Figure;
  on: Figure;
  /** on/off of the medians. */
  ratio: number;
}

export interface TracingResult {
  runs: number;
  sessions: number;
  turns: number;
  rows: TracingRow[];
  /** OTLP bytes the endpoint received per traced turn (warm-up turns included), in the last run. */
  exportedBytesPerTurn: { echo: number; model: number };
}

async function otlpSink(): Promise<{ endpoint: string; bytes: () => number; close(): Promise<void> }> {
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on("data", (chunk: Buffer) => (bytes += chunk.length));
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function tracing(ctx: BenchContext): Promise<TracingResult> {
  const runs = ctx.quick ? 1 : 3;
  const sessions = 10;
  const turns = ctx.quick ? 20 : 50;
  const sink = await otlpSink();
  const server = await modelServer({ chunkChars: 9 });
  let exported = { echo: 0, model: 0 };
  try {
    const traced = {
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint,
      OTEL_TRACES_SAMPLER: "always_on",
      OTEL_BSP_SCHEDULE_DELAY: String(EXPORT_EVERY_MS),
    };
    const model = ["--model-provider", "openai-compatible", "--base-url", server.url, "--model", MODEL];
    /** Host CPU ms per turn: `sessions` sessions, `turns` turns each, all sessions at once. */
    const perTurn = (args: string[], env: NodeJS.ProcessEnv | undefined) =>
      withSystem(startHost(args, "allow", env), async ({ client, pid, stderrTail }) => {
        const ids = await Promise.all(
          Array.from({ length: sessions }, async () => {
            const { sessionId } = await client.newSession(ctx.cwd);
            await client.prompt(sessionId, "warm up");
            return sessionId;
          }),
        );
        await waitForIdle(pid);
        const ticks = cpuTicks(pid);
        await Promise.all(
          ids.map(async (id) => {
            for (let i = 0; i < turns; i++) await client.prompt(id, benchPrompt(i));
          }),
        );
        // The last spans wait for the processor's next export: off and on wait alike.
        await sleep(EXPORT_EVERY_MS * 1.5);
        await waitForIdle(pid);
        if (env && /trace export failed/.test(stderrTail())) throw new Error("tracing: an export failed");
        return ((cpuTicks(pid) - ticks) * TICK_MS) / (sessions * turns);
      });
    const measured = await repeat(ctx, `tracing: ${sessions} sessions × ${turns} turns, off and on`, runs, async () => {
      const echoOff = await perTurn([], undefined);
      const before = sink.bytes();
      const echoOn = await perTurn([], traced);
      const echoBytes = sink.bytes() - before;
      const modelOff = await perTurn(model, undefined);
      const modelOn = await perTurn(model, traced);
      const tracedTurns = sessions * (turns + 1);
      exported = { echo: echoBytes / tracedTurns, model: (sink.bytes() - before - echoBytes) / tracedTurns };
      return { echoOff, echoOn, modelOff, modelOn };
    });
    const fig = figures(measured, ["echoOff", "echoOn", "modelOff", "modelOn"] as const);
    return {
      runs,
      sessions,
      turns,
      rows: [
        { turn: "echo", off: fig.echoOff, on: fig.echoOn, ratio: ratio(fig.echoOn, fig.echoOff) },
        { turn: "model", off: fig.modelOff, on: fig.modelOn, ratio: ratio(fig.modelOn, fig.modelOff) },
      ],
      exportedBytesPerTurn: exported,
    };
  } finally {
    await server.close();
    await sink.close();
  }
}
