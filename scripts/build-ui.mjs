// Builds the dashboard (ui/) into dist/ui/, which the listener serves at /ui/ with --dashboard: one script bundle
// (preact and uPlot in it, no CDN), its style sheets and the HTML page, none of them inline (the page's
// Content-Security-Policy allows only its own files). Prints the page's gzipped size.
import { copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const ui = fileURLToPath(new URL("../ui/", import.meta.url));
const out = fileURLToPath(new URL("../dist/ui/", import.meta.url));
const uplotCss = fileURLToPath(new URL("../node_modules/uplot/dist/uPlot.min.css", import.meta.url));

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
await Promise.all([
  build({
    entryPoints: [`${ui}main.tsx`],
    outfile: `${out}app.js`,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "warning",
  }),
  copyFile(`${ui}index.html`, `${out}index.html`),
  copyFile(`${ui}style.css`, `${out}style.css`),
  copyFile(`${ui}favicon.svg`, `${out}favicon.svg`),
  copyFile(uplotCss, `${out}uplot.css`),
]);
let total = 0;
for (const name of await readdir(out)) total += gzipSync(await readFile(out + name)).length;
console.log(`dashboard: dist/ui/ is ${(total / 1024).toFixed(1)} kB gzipped`);
