// Builds what a session worker thread loads (after tsc has compiled to dist/). Each bundle is one CommonJS file in
// dist/workers/bundle/, so a thread reads and compiles one file instead of resolving hundreds of modules:
//   session-entry.js      the session worker itself (worker-bundle.ts: the piscina task and the build-time warm-up);
//                         the MCP client is left out of it and required only by the sessions given MCP servers
//   mcp-client.js         the MCP client
//   model-gateway.js      the model gateway's thread (workers/gateway/): the `openai` client, one per host
//   trace-export.js       the trace export thread (workers/trace-export/): the OpenTelemetry SDK's batch processor
//                         and OTLP exporter, one per host that traces
//   session-loader.js     what piscina loads in a thread: it compiles session-entry.js with a V8 code cache
// Last, the loader runs one session through the bundle and writes that code cache (session-entry.js.cache), under
// the V8 flags the host sets (src/pool/isolate-flags.ts).
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { ISOLATE_FLAGS } from "../dist/src/pool/isolate-flags.js";

const dist = fileURLToPath(new URL("../dist/workers/", import.meta.url));
const out = `${dist}bundle/`;
const common = { bundle: true, format: "cjs", platform: "node", target: "node20", logLevel: "warning" };

await Promise.all([
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
copyFileSync(fileURLToPath(new URL("../workers/bundle-package.json", import.meta.url)), `${out}package.json`);
// Under the host's V8 flags: a cache made under others is rejected by every thread.
execFileSync(process.execPath, [...ISOLATE_FLAGS, `${out}session-loader.js`, "--write-code-cache"], {
  stdio: "inherit",
});
