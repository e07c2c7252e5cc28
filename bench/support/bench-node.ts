// The Nodes the worker-start scenario measures: the bench's own, and a second one named by BENCH_NODE (the path of
// another node binary, such as Node 26 beside the machine's Node 20). Each gets the session worker's V8 code cache of
// its own V8 version (workers/code-cache-name.ts) before it is measured: a cache made by another Node is rejected, and
// its column would then measure a compile the host does not do where it is built by that Node.
import { execFile } from "node:child_process";
import { statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { codeCacheName } from "../../workers/code-cache-name.js";

const BUNDLE_DIR = fileURLToPath(new URL("../../workers/bundle/", import.meta.url));
const WRITE_CACHE = fileURLToPath(new URL("../../../scripts/write-code-cache.mjs", import.meta.url));
const CACHE_PROBE = fileURLToPath(new URL("../processes/code-cache-probe.js", import.meta.url));

export interface BenchNode {
  /** The binary the probes run under. */
  path: string;
  /** What `node --version` says. */
  version: string;
  /** Its V8's version, which names its code cache. */
  v8: string;
  /** Whether a thread of a process with the host's V8 flags takes the code cache (code-cache-probe.ts). */
  codeCacheTaken: boolean;
}

export interface BenchNodes {
  nodes: BenchNode[];
  /** Why only the bench's own Node is measured, if it is. */
  notMeasured: string | null;
}

const run = promisify(execFile);

/** The bench's own Node, then BENCH_NODE's if it is set: each with its code cache written and checked. */
export async function benchNodes(): Promise<BenchNodes> {
  const second = process.env.BENCH_NODE;
  const nodes = [await ready(process.execPath)];
  if (!second) return { nodes, notMeasured: "BENCH_NODE is unset (the path of another node binary)" };
  nodes.push(await ready(second));
  return { nodes, notMeasured: null };
}

async function ready(path: string): Promise<BenchNode> {
  const version = (await run(path, ["--version"])).stdout.trim();
  const v8 = (await run(path, ["-p", "process.versions.v8"])).stdout.trim();
  // Missing where the last build was another Node's (the build removes the caches it does not write); older than the
  // bundle where the bundle was rebuilt since by other means.
  if (!isFresh(`${BUNDLE_DIR}${codeCacheName(v8)}`)) await run(path, [WRITE_CACHE]);
  const { taken } = JSON.parse((await run(path, [CACHE_PROBE])).stdout) as { taken: boolean };
  return { path, version, v8, codeCacheTaken: taken };
}

function isFresh(cache: string): boolean {
  const made = statSync(cache, { throwIfNoEntry: false });
  return made !== undefined && made.mtimeMs >= statSync(`${BUNDLE_DIR}session-entry.js`).mtimeMs;
}
