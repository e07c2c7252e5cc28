// The session worker's V8 code cache is taken by the threads the host starts: made at build time under the host's
// V8 flags (src/pool/isolate-flags.ts), since V8 rejects a cache made under other flags and the thread then compiles
// the whole bundle again.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const dist = (path: string) => fileURLToPath(new URL(`../../dist/${path}`, import.meta.url));

// A process that tunes its isolates as the host does, then compiles the bundle in a thread as the loader does.
const probe = `
import { Worker } from "node:worker_threads";
import { tuneIsolates } from ${JSON.stringify(dist("src/pool/isolate-flags.js"))};
tuneIsolates();
const worker = new Worker(
  "const { compileBundle } = require(" + JSON.stringify(${JSON.stringify(dist("workers/bundle/session-loader.js"))}) + ");" +
    "require('node:worker_threads').parentPort.postMessage(compileBundle().cachedDataRejected);",
  { eval: true, execArgv: [] },
);
worker.once("message", (rejected) => { console.log(JSON.stringify({ rejected })); void worker.terminate(); });
`;

it("is accepted by a thread of a process with the host's V8 flags", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", probe]);
  expect(JSON.parse(stdout)).toEqual({ rejected: false });
});
