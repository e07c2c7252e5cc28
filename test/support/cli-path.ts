// The built host's entry point, whether this module runs from source (vitest) or from dist (the npm scripts).
import { join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
export const REPO_ROOT = here.includes(`${sep}dist${sep}`) ? resolve(here, "../../..") : resolve(here, "../..");
export const CLI = join(REPO_ROOT, "dist/src/cli.js");
