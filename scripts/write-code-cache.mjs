// Writes the session worker's V8 code cache for the Node that runs this script: the built loader
// (dist/workers/bundle/session-loader.js) runs one session through the bundle and stores what V8 compiled, as
// session-entry.js.<V8 version>.cache beside it (workers/code-cache-name.ts). It runs under the V8 flags the host sets
// on this Node (src/pool/isolate-flags.ts, which depend on its V8 version): V8 takes a cache only in an isolate of
// the same version and flags, and every thread would otherwise compile the bundle again.
// Run by build-worker.mjs with the Node that builds, and by the bench (scenario 0) with the second Node it measures.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { ISOLATE_FLAGS } from "../dist/src/pool/isolate-flags.js";

const loader = fileURLToPath(new URL("../dist/workers/bundle/session-loader.js", import.meta.url));
execFileSync(process.execPath, [...ISOLATE_FLAGS, loader, "--write-code-cache"], { stdio: "inherit" });
