// The openai-compatible provider's own costs, against the local test server (loopback, no model time):
//   - a prompt through the host vs the same request made straight from this process with the `openai` client;
//   - cancel: from session/cancel to the server seeing the connection close, and to the prompt settling;
//   - a 429 answered with retry-after-ms: 0, i.e. what one retry costs besides the wait.
// Run: npm run build && node dist/bench/processes/openai-provider-latency.js [--quick]
import { OpenAI } from "openai";
import { HostClient } from "../../src/client/index.js";
import { OpenAiTestServer } from "../../test/support/openai-server.js";
import { summarize } from "../support/stats.js";

const MODEL = "bench-model";
const quick = process.argv.includes("--quick");
const N = quick ? 30 : 200;

function line(label: string, samples: number[]): void {
  const s = summarize(samples);
  console.log(
    `${label.padEnd(58)} n=${String(s.count).padStart(4)}  p50 ${s.p50.toFixed(2).padStart(7)} ms  p95 ${s.p95.toFixed(2).padStart(7)} ms  max ${s.max.toFixed(2).padStart(7)} ms`,
  );
}

async function main(): Promise<void> {
  const server = await OpenAiTestServer.start({ chunkChars: 8 });
  const client = await HostClient.spawn({
    hostArgs: [
      "--model-provider",
      "openai-compatible",
      "--base-url",
      server.url,
      "--model",
      MODEL,
      "--cancel-grace-ms",
      "60000",
      "--log-level",
      "warn",
    ],
    env: { ...process.env, OPENAI_API_KEY: "sk-bench" },
  });
  const cwd = process.cwd();
  try {
    // First prompt of fresh sessions: worker start, module load, first connection.
    const firsts: number[] = [];
    for (let i = 0; i < (quick ? 5 : 20); i++) {
      const started = performance.now();
      const { sessionId } = await client.newSession(cwd);
      await client.prompt(sessionId, "first");
      firsts.push(performance.now() - started);
    }
    line("session/new + first prompt", firsts);

    const { sessionId } = await client.newSession(cwd);
    const viaHost: number[] = [];
    for (let i = 0; i < N; i++) {
      const started = performance.now();
      const result = await client.prompt(sessionId, `prompt ${i}`);
      viaHost.push(performance.now() - started);
      if (!result.text.endsWith(`you said: prompt ${i}`)) throw new Error(`unexpected answer: ${result.text}`);
    }
    line(`prompt via host (history grows to ${N} turns)`, viaHost);

    const openai = new OpenAI({ baseURL: server.url, apiKey: "sk-bench", maxRetries: 0 });
    const directly: number[] = [];
    for (let i = 0; i < N; i++) {
      const started = performance.now();
      const stream = await openai.chat.completions.create({
        model: MODEL,
        messages: [{ role: "user", content: `prompt ${i}` }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = "";
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
      directly.push(performance.now() - started);
      if (!text.endsWith(`you said: prompt ${i}`)) throw new Error(`unexpected answer: ${text}`);
    }
    line("same request straight from this process (floor)", directly);

    const toClose: number[] = [];
    const toSettle: number[] = [];
    const c = (await client.newSession(cwd)).sessionId;
    await client.prompt(c, "warm");
    for (let i = 0; i < (quick ? 10 : 50); i++) {
      const s = c;
      const before = server.requests.length;
      server.enqueue({ text: "x".repeat(4000), tokensPerSecond: 100, firstTokenMs: 5 });
      const turn = client.prompt(s, "slow");
      await server.waitForRequests(before + 1);
      const request = server.requests[before]!;
      await new Promise((resolve) => setTimeout(resolve, 50));
      const cancelled = performance.now();
      await client.cancel(s);
      const [end, result] = await Promise.all([request.ended.then((how) => ({ how, at: performance.now() })), turn]);
      const settled = performance.now();
      if (end.how !== "client-closed" || result.stopReason !== "cancelled")
        throw new Error(`cancel: ${end.how}, ${result.stopReason}`);
      toClose.push(end.at - cancelled);
      toSettle.push(settled - cancelled);
    }
    line("cancel → server sees the connection close", toClose);
    line("cancel → prompt settles cancelled", toSettle);

    const retried: number[] = [];
    const plain: number[] = [];
    const r = (await client.newSession(cwd)).sessionId;
    await client.prompt(r, "warm");
    for (let i = 0; i < (quick ? 20 : 100); i++) {
      server.enqueue({ fail: { status: 429, message: "slow down", retryAfterMs: 0 } }, { text: "ok" });
      let started = performance.now();
      await client.prompt(r, "retry me");
      retried.push(performance.now() - started);
      server.enqueue({ text: "ok" });
      started = performance.now();
      await client.prompt(r, "plain");
      plain.push(performance.now() - started);
    }
    line("prompt with one 429 (retry-after-ms: 0) then success", retried);
    line("same prompt without the 429", plain);
  } finally {
    await client.dispose();
    await server.close();
  }
}

await main();
