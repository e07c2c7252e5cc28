// Where bubblewrap is: the --bwrap-path flag when given (even if nothing is there: the spawner then reports it and
// sandboxed commands fail closed), else the first executable `bwrap` on PATH, else null.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export function findBwrap(flag: string, path = process.env.PATH ?? ""): string | null {
  if (flag.length > 0) return flag;
  for (const dir of path.split(delimiter)) {
    if (dir.length === 0) continue;
    const candidate = join(dir, "bwrap");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}
