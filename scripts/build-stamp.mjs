// A build step's record of what it read: esbuild's metafile names every input of a bundle, and the stamp keeps that
// list; the step is up to date while the stamp exists and no input is newer than it (or gone). package-lock.json
// counts as an input of every step, since npm ci writes node_modules with fixed mtimes: a changed dependency shows
// only there.
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const LOCKFILE = `${root}package-lock.json`;

/** True when every input the stamp lists (and every path of `outputs`) predates or equals the stamp's own write. */
export async function upToDate(stampPath, outputs = []) {
  let stamp;
  try {
    stamp = JSON.parse(await readFile(stampPath, "utf8"));
  } catch {
    return false;
  }
  const stampedAt = (await stat(stampPath)).mtimeMs;
  for (const output of outputs) if (!(await exists(output))) return false;
  for (const input of [LOCKFILE, ...stamp.inputs]) {
    const at = await stat(input).then(
      (found) => found.mtimeMs,
      () => Infinity,
    );
    if (at > stampedAt) return false;
  }
  return true;
}

/** Records the inputs of esbuild results built with `metafile: true` (paths in a metafile are relative to root). */
export async function writeStamp(stampPath, results, extraInputs = []) {
  const inputs = new Set(extraInputs);
  for (const result of results)
    for (const input of Object.keys(result.metafile.inputs))
      // A plugin's virtual module ("namespace:path") is no file.
      if (!/^[\w-]+:/.test(input)) inputs.add(`${root}${input}`);
  await mkdir(dirname(stampPath), { recursive: true });
  await writeFile(stampPath, JSON.stringify({ inputs: [...inputs].sort() }));
}

async function exists(path) {
  return stat(path).then(
    () => true,
    () => false,
  );
}
