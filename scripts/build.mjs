// npm run build: the TypeScript (tsc, incremental), then the worker bundles and their code cache (build-worker.mjs),
// then the dashboard (build-ui.mjs). Each step does only what its inputs ask: after `npm ci` has built, `npm run demo`,
// `npm test`, `npm pack` and the bench find every step up to date and go on within a second.
import { spawnSync } from "node:child_process";
import { readdir, stat, utimes, writeFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
/** tsconfig.json's include, and what else tsc's output depends on. */
const SOURCES = ["src", "workers", "bench", "scripts", "test/support"];
const CONFIG = ["tsconfig.json", "package-lock.json"];
const stamp = `${root}dist/.build/tsc.stamp`;

if (!(await typeScriptUpToDate())) {
  const startedAt = new Date();
  const tsc = spawnSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, "-p", `${root}tsconfig.json`], {
    stdio: "inherit",
  });
  if (tsc.status !== 0) process.exit(tsc.status ?? 1);
  await mkdir(`${root}dist/.build`, { recursive: true });
  await writeFile(stamp, "");
  // Stamped as of tsc's start: a source saved while it ran is newer, and the next build compiles it.
  await utimes(stamp, startedAt, startedAt);
}
await import("./build-worker.mjs");
await import("./build-ui.mjs");

/** Whether tsc's last run started after every source and config file was last written. */
async function typeScriptUpToDate() {
  const stampedAt = await stat(stamp).then(
    (found) => found.mtimeMs,
    () => -1,
  );
  if (stampedAt < 0) return false;
  for (const file of CONFIG) if ((await stat(`${root}${file}`)).mtimeMs > stampedAt) return false;
  for (const dir of SOURCES)
    for (const entry of await readdir(`${root}${dir}`, { recursive: true, withFileTypes: true }))
      if (entry.isFile() && /\.(ts|tsx|mts|json)$/.test(entry.name))
        if ((await stat(`${entry.parentPath}/${entry.name}`)).mtimeMs > stampedAt) return false;
  return true;
}
