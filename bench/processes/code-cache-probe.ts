// Whether a thread takes the session worker's V8 code cache on the Node that runs this probe, in a process with the
// host's V8 flags: a column of the worker-start scenario measures the host's start only where it does.
// Usage: <node> dist/bench/processes/code-cache-probe.js   (prints {"taken":true} or {"taken":false})
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { tuneIsolates } from "../../src/pool/isolate-flags.js";

const LOADER = fileURLToPath(new URL("../../workers/bundle/session-loader.js", import.meta.url));

tuneIsolates();
// cachedDataRejected is undefined where there was no cache to give V8: not taken either.
const worker = new Worker(
  `const { compileBundle } = require(${JSON.stringify(LOADER)});` +
    `require("node:worker_threads").parentPort.postMessage(compileBundle().cachedDataRejected === false);`,
  { eval: true },
);
worker.once("message", (taken: boolean) => {
  process.stdout.write(`${JSON.stringify({ taken })}\n`);
  void worker.terminate();
});
worker.once("error", (error) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
