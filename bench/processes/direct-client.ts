// The floor of the model path, in a process of its own: S sessions' worth of streamed chat completions made straight
// to the server with the `openai` client (one client, as an application would), K one after another per session, all
// S at once, after one unmeasured round of S at once (the client warm and holding S connections, as the host is when
// its sessions are measured). Prints {wallMs, cpuMs, requests, p50, p99} as JSON; cpuMs is this process's (the
// client's) CPU.
// Usage: node dist/bench/processes/direct-client.js <baseURL> <sessions> <requests per session> [answer chars]
import { OpenAI } from "openai";
import { benchPrompt } from "../support/model-prompts.js";
import { summarize } from "../support/stats.js";

const [baseURL, sessionsArg, requestsArg, charsArg] = process.argv.slice(2);
const sessions = Number(sessionsArg);
const requests = Number(requestsArg);
const chars = Number(charsArg ?? 0);
if (!baseURL || !sessions || !requests) throw new Error("usage: direct-client <baseURL> <sessions> <requests>");
const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0 });

async function one(prompt: string): Promise<void> {
  const stream = await client.chat.completions.create({
    model: "bench-model",
    messages: [{ role: "user", content: prompt }],
    stream: true,
    stream_options: { include_usage: true },
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  if (!text.endsWith(`you said: ${prompt}`)) throw new Error(`unexpected answer: ${text}`);
}

await Promise.all(Array.from({ length: sessions }, () => one(benchPrompt(0, chars))));

const latencies: number[] = [];
const cpu0 = process.cpuUsage();
const t0 = performance.now();
await Promise.all(
  Array.from({ length: sessions }, async () => {
    for (let i = 0; i < requests; i++) {
      const sent = performance.now();
      await one(benchPrompt(i, chars));
      latencies.push(performance.now() - sent);
    }
  }),
);
const wallMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const { p50, p99 } = summarize(latencies);
process.stdout.write(
  `${JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, requests: latencies.length, p50, p99 })}\n`,
);
