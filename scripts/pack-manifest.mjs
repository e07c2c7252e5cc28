// npm pack ships package.json as it is on disk when prepack has run. Its scripts are this checkout's: in the tarball,
// `prepare` would name a file the package does not hold (npm warns on install and lists it as an install script to
// allow), and every other script needs sources it does not ship. `strip` (prepack, after the build) keeps the
// manifest aside and writes it without scripts; `restore` (postpack) puts it back. A pack that failed between the two
// leaves the copy, which the next `strip` restores first.
import { readFile, rename, stat, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

const manifest = fileURLToPath(new URL("../package.json", import.meta.url));
const kept = fileURLToPath(new URL("../dist/.build/package.json.prepack", import.meta.url));
const restore = async () => {
  if (
    await stat(kept).then(
      () => true,
      () => false,
    )
  )
    await rename(kept, manifest);
};

switch (process.argv[2]) {
  case "strip": {
    await restore();
    const text = await readFile(manifest, "utf8");
    await writeFile(kept, text);
    const { scripts: _scripts, ...packed } = JSON.parse(text);
    await writeFile(manifest, `${JSON.stringify(packed, null, 2)}\n`);
    break;
  }
  case "restore":
    await restore();
    break;
  default:
    throw new Error("usage: pack-manifest.mjs strip|restore");
}
