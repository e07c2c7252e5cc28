// The bare thread, the floor of a session worker: `new Worker()` that posts one message and then idles.
import { Worker } from "node:worker_threads";

const BARE = `require("node:worker_threads").parentPort.postMessage("up"); setInterval(() => {}, 1 << 30);`;

/** A bare thread, once its first message has arrived. */
export async function startBareThread(): Promise<Worker> {
  const worker = new Worker(BARE, { eval: true });
  await new Promise((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return worker;
}
