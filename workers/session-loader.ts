// What piscina loads in a session worker's thread: the bundled session worker (one CommonJS file, built by
// `npm run build`), compiled with the V8 code cache made at build time, so a thread skips parsing and compiling
// what every thread before it compiled. The cache is the one of this Node's V8 version (code-cache-name.ts); one V8
// rejects (another build of the same version) only costs the compile it saves.
// Run directly (`node session-loader.js --write-code-cache`, as scripts/write-code-cache.mjs runs it), it makes that
// cache: it runs one session through the bundle, as a thread would, and stores what V8 compiled.
// The bundle is loaded by the task, not when piscina loads this file: a load that throws (the bundle unreadable or
// broken, the heap too small for it) then fails the task, and so the session's start, with its cause. Thrown while
// piscina loads this file, it would end the thread before piscina hands it the task, and piscina keeps the task queued
// for a thread that never comes: the session's prompt would wait for ever.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import type { SessionTask } from "../src/protocol/port.js";
import { codeCacheName } from "./code-cache-name.js";

const BUNDLE = join(__dirname, "session-entry.js");
const CACHE = join(__dirname, codeCacheName(process.versions.v8));

type ModuleFunction = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
) => void;

function compile(cachedData: Buffer | undefined): Script {
  const source = readFileSync(BUNDLE, "utf8");
  return new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: BUNDLE,
    ...(cachedData ? { cachedData } : {}),
  });
}

interface BundleExports {
  /** The piscina task that is a session worker's life. */
  default(task: SessionTask): Promise<never>;
  warmUp(): Promise<void>;
}

function run(script: Script): BundleExports {
  const module = { exports: {} as BundleExports };
  // This file is CommonJS in the bundle's directory: its own require resolves what the bundle requires.
  (script.runInThisContext() as ModuleFunction).call(
    module.exports,
    module.exports,
    require,
    module,
    BUNDLE,
    dirname(BUNDLE),
  );
  return module.exports;
}

function readCache(): Buffer | undefined {
  try {
    return readFileSync(CACHE);
  } catch {
    return undefined;
  }
}

/** Runs one session through the bundle first, so the cache holds what a session's start compiles too. */
function writeCache(): null {
  const script = compile(undefined);
  void run(script)
    .warmUp()
    .then(() => writeFileSync(CACHE, script.createCachedData()));
  return null;
}

/** The bundle compiled as a session's thread compiles it (whether V8 took the cache is `cachedDataRejected`). */
export function compileBundle(): Script {
  return compile(readCache());
}

/** Loaded once per thread: piscina may give a thread whose task failed another task (a load that threw is retried). */
let loaded: BundleExports | undefined;

function runSession(task: SessionTask): Promise<never> {
  loaded ??= run(compileBundle());
  return loaded.default(task);
}

export default process.argv.includes("--write-code-cache") ? writeCache() : runSession;
