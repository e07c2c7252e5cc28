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
import { execFileSync } from "node:child_process";
import { copyFileSync, readdirSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

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
// Every cache beside the bundle was made from the one before it (other Nodes' too, written by the bench): none matches
// the new bundle, and npm pack would ship them.
for (const name of readdirSync(out))
  if (name.startsWith("session-entry.js.") && name.endsWith(".cache")) rmSync(`${out}${name}`);
execFileSync(process.execPath, [fileURLToPath(new URL("write-code-cache.mjs", import.meta.url))], { stdio: "inherit" });
