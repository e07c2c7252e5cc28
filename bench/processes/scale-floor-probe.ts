// The floor of the scale scenario, in a process of its own: N bare worker threads started at once, each answering
// K echo messages over its port, one after another. Prints {wallMs, cpuMs} as JSON.
// Usage: node dist/bench/processes/scale-floor-probe.js <workers> <messages>
import { Worker } from "node:worker_threads";

const ECHO = `const { parentPort } = require("node:worker_threads"); parentPort.on("message", (text) => parentPort.postMessage("You said: " + text)); parentPort.postMessage("up");`;

async function session(messages: number): Promise<Worker> {
  const worker = new Worker(ECHO, { eval: true });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
  await next();
  for (let i = 0; i < messages; i++) {
    const answer = next();
    worker.postMessage(`hi ${i}`);
    await answer;
  }
  return worker;
}

const [workers, messages] = process.argv.slice(2).map(Number);
if (!workers || messages === undefined) throw new Error("usage: scale-floor-probe <workers> <messages>");
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const started = await Promise.all(Array.from({ length: workers }, () => session(messages)));
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
await Promise.all(started.map((worker) => worker.terminate()));
process.stdout.write(`${JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000 })}\n`);
