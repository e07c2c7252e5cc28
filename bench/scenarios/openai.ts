// Scenario 7: the OpenAI-compatible provider against the local test server with a set latency (first token after
// FIRST_TOKEN_MS, then CHUNKS_PER_S chunks a second), at S sessions × K prompts; beside it, the same requests made
// straight to the server with the `openai` client from this process (the floor of that path).
import { OpenAI } from "openai";
import type { BenchContext, Skipped } from "../context.js";
import { repeat } from "../context.js";
import { figure, summarize, type Figure } from "../stats.js";
import { openSessions, startHost, withSystem } from "../systems.js";

const FIRST_TOKEN_MS = 50;
const CHUNKS_PER_S = 500;
const MODEL = "bench-model";

export interface OpenAiRow {
  sessions: number;
  promptsPerSession: number;
  host: { p50: Figure; p99: Figure; promptsPerSecond: Figure };
  direct: { p50: Figure; p99: Figure; promptsPerSecond: Figure };
}

export interface OpenAiResult {
  runs: number;
  firstTokenMs: number;
  chunksPerSecond: number;
  rows: OpenAiRow[];
}

type ServerModule = typeof import("../../test/support/openai-server.js");

export async function openAi(ctx: BenchContext): Promise<OpenAiResult | Skipped> {
  let server: Awaited<ReturnType<ServerModule["OpenAiTestServer"]["start"]>>;
  try {
    const { OpenAiTestServer } = (await import("../../test/support/openai-server.js")) as ServerModule;
    server = await OpenAiTestServer.start({ firstTokenMs: FIRST_TOKEN_MS, tokensPerSecond: CHUNKS_PER_S, chunkChars: 8 });
  } catch (error) {
    return { skipped: `the OpenAI-compatible test server is not available: ${(error as Error).message}` };
  }
  try {
    const hostArgs = ["--model-provider", "openai-compatible", "--base-url", server.url, "--model", MODEL, "--max-live-workers", "264"];
    const unavailable = await probe(ctx, hostArgs);
    if (unavailable) return { skipped: unavailable };
    const plan = ctx.quick
      ? [
          { sessions: 1, prompts: 20 },
          { sessions: 10, prompts: 5 },
        ]
      : [
          { sessions: 1, prompts: 40 },
          { sessions: 10, prompts: 10 },
          { sessions: 50, prompts: 4 },
        ];
    const runs = ctx.quick ? 1 : 3;
    const rows: OpenAiRow[] = [];
    for (const { sessions, prompts } of plan) {
      const measured = await repeat(ctx, `openai-compatible S=${sessions} K=${prompts}`, runs, async () => ({
        host: await viaHost(ctx, hostArgs, sessions, prompts),
        direct: await direct(server.url, sessions, prompts),
      }));
      const fig = (pick: "host" | "direct") => ({
        p50: figure(measured.map((m) => m[pick].p50)),
        p99: figure(measured.map((m) => m[pick].p99)),
        promptsPerSecond: figure(measured.map((m) => m[pick].promptsPerSecond)),
      });
      rows.push({ sessions, promptsPerSession: prompts, host: fig("host"), direct: fig("direct") });
    }
    return { runs, firstTokenMs: FIRST_TOKEN_MS, chunksPerSecond: CHUNKS_PER_S, rows };
  } finally {
    await server.close();
  }
}

/** Null when the host serves the provider, else why not. */
async function probe(ctx: BenchContext, hostArgs: string[]): Promise<string | null> {
  try {
    return await withSystem(startHost(hostArgs), async ({ client }) => {
      const { sessionId } = await client.newSession(ctx.cwd);
      const result = await client.prompt(sessionId, "probe");
      return result.text.includes("you said: probe") ? null : `openai-compatible provider answered unexpectedly: ${result.text.slice(0, 120)}`;
    });
  } catch (error) {
    return `openai-compatible provider not available: ${(error as Error).message}`;
  }
}

async function viaHost(ctx: BenchContext, hostArgs: string[], sessions: number, prompts: number) {
  return withSystem(startHost(hostArgs), async ({ client }) => {
    const ids = await openSessions(client, sessions, ctx.cwd);
    return timed(sessions, prompts, async (s, i) => {
      const result = await client.prompt(ids[s]!, `prompt ${i}`);
      if (!result.text.endsWith(`you said: prompt ${i}`)) throw new Error(`unexpected answer: ${result.text}`);
    });
  });
}

async function direct(baseURL: string, sessions: number, prompts: number) {
  const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0 });
  return timed(sessions, prompts, async (_s, i) => {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: "user", content: `prompt ${i}` }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
    if (!text.endsWith(`you said: prompt ${i}`)) throw new Error(`unexpected answer: ${text}`);
  });
}

async function timed(sessions: number, prompts: number, one: (session: number, prompt: number) => Promise<void>) {
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: sessions }, async (_, s) => {
      for (let i = 0; i < prompts; i++) {
        const sent = performance.now();
        await one(s, i);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const wall = performance.now() - started;
  const { p50, p99 } = summarize(latencies);
  return { p50, p99, promptsPerSecond: (latencies.length * 1000) / wall };
}
