// Builds the dashboard (ui/) into dist/ui/, which the listener serves at /ui/ with --dashboard: one script bundle
// (preact and uPlot in it, no CDN), its style sheets and the HTML page, none of them inline (the page's
// Content-Security-Policy allows only its own files). Prints the page's gzipped size.
import { copyFile, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build as esbuild } from "esbuild";
import { upToDate, writeStamp } from "./build-stamp.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const ui = `${root}ui/`;
const out = fileURLToPath(new URL("../dist/ui/", import.meta.url));
const uplotCss = fileURLToPath(new URL("../node_modules/uplot/dist/uPlot.min.css", import.meta.url));

/**
 * zod's namespace re-exports all its locales (z.locales, ~260 kB of the bundle's ~450 kB of zod); the page uses none
 * of them by that name (its messages are English: zod's own API sets them from the English locale's file, which
 * stays).
 */
const noZodLocales = {
  name: "no-zod-locales",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes("/node_modules/zod/") ? { path: "zod-locales", namespace: "no-zod-locales" } : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: "no-zod-locales" }, () => ({ contents: "export {};", loader: "js" }));
  },
};

const stamp = fileURLToPath(new URL("../dist/.build/dashboard.json", import.meta.url));
const copied = [`${ui}index.html`, `${ui}style.css`, `${ui}favicon.svg`, uplotCss];
// Built already from inputs no newer than the last build (build-stamp.mjs): nothing to do.
if (!(await upToDate(stamp, [`${out}app.js`]))) await build();

async function build() {
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const [bundle] = await Promise.all([
    esbuild({
      absWorkingDir: root,
      metafile: true,
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
      plugins: [noZodLocales],
    }),
    copyFile(`${ui}index.html`, `${out}index.html`),
    copyFile(`${ui}style.css`, `${out}style.css`),
    copyFile(`${ui}favicon.svg`, `${out}favicon.svg`),
    copyFile(uplotCss, `${out}uplot.css`),
  ]);
  await writeStamp(stamp, [bundle], [...copied, fileURLToPath(import.meta.url)]);
  let total = 0;
  for (const name of await readdir(out)) total += gzipSync(await readFile(out + name)).length;
  console.log(`dashboard: dist/ui/ is ${(total / 1024).toFixed(1)} kB gzipped`);
}
