// Builds what a session worker thread loads (after tsc has compiled to dist/). Each bundle is one CommonJS file in
// dist/workers/bundle/, so a thread reads and compiles one file instead of resolving hundreds of modules:
//   session-entry.js      the session worker itself (worker-bundle.ts: the piscina task and the build-time warm-up);
//                         the MCP client is left out of it and required only by the sessions given MCP servers
//   mcp-client.js         the MCP client
//   model-gateway.js      the model gateway's thread (workers/gateway/): the `openai` client, one per host
//   trace-export.js       the trace export thread (workers/trace-export/): the OpenTelemetry SDK's batch processor
//                         and OTLP exporter, one per host that traces
//   session-loader.js     what piscina loads in a thread: it compiles session-entry.js with a V8 code cache
// Last, write-code-cache.mjs writes that code cache for the Node that builds (session-entry.js.<V8 version>.cache).
// Each half runs only when it must: the bundles when an input of theirs (build-stamp.mjs) is newer than the last
// build's, the cache when this Node's is missing or older than the bundle.
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { upToDate, writeStamp } from "./build-stamp.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = `${root}dist/workers/`;
const out = `${dist}bundle/`;
const stamp = `${root}dist/.build/worker-bundles.json`;
const BUNDLES = ["session-entry", "model-gateway", "trace-export", "mcp-client", "session-loader"];
const common = {
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  logLevel: "warning",
  metafile: true,
  absWorkingDir: root,
};

if (
  !(await upToDate(
    stamp,
    BUNDLES.map((name) => `${out}${name}.js`),
  ))
)
  await bundle();
const cache = `${out}session-entry.js.${process.versions.v8}.cache`;
const cacheAt = (() => {
  try {
    return statSync(cache).mtimeMs;
  } catch {
    return -1;
  }
})();
if (cacheAt < statSync(`${out}session-entry.js`).mtimeMs)
  execFileSync(process.execPath, [fileURLToPath(new URL("write-code-cache.mjs", import.meta.url))], {
    stdio: "inherit",
  });

async function bundle() {
  const results = await Promise.all([
    build({
      ...common,
      entryPoints: [`${dist}worker-bundle.js`],
      outfile: `${out}session-entry.js`,
      // A worker loads no code through import(): what it requires lazily stays a require of a sibling bundle.
      supported: { "dynamic-import": false },
      external: ["./mcp-client.js"],
    }),
    build({ ...common, entryPoints: [`${dist}gateway/gateway-entry.js`], outfile: `${out}model-gateway.js` }),
    build({ ...common, entryPoints: [`${dist}trace-export/export-entry.js`], outfile: `${out}trace-export.js` }),
    build({ ...common, entryPoints: [`${dist}mcp/mcp-client.js`], outfile: `${out}mcp-client.js` }),
    build({ ...common, entryPoints: [`${dist}session-loader.js`], outfile: `${out}session-loader.js` }),
  ]);
  // The bundles are CommonJS whatever the package's "type" says.
  const packageJson = `${root}workers/bundle-package.json`;
  copyFileSync(packageJson, `${out}package.json`);
  // Every cache beside the bundle was made from the one before it (other Nodes' too, written by the bench): none
  // matches the new bundle, and npm pack would ship them.
  for (const name of readdirSync(out))
    if (name.startsWith("session-entry.js.") && name.endsWith(".cache")) rmSync(`${out}${name}`);
  await writeStamp(stamp, results, [packageJson, fileURLToPath(import.meta.url)]);
}
