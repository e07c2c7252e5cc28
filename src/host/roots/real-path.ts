// A path's real location for a roots check: symlinks resolved, and for a path that does not exist, its nearest
// existing ancestor's real path with the missing parts after it (so a missing path behind a symlink is judged where
// the symlink leads, and whether something exists outside the roots is never told).
import { realpath } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";

export async function realLocation(path: string): Promise<string> {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    try {
      return join(await realpath(at), ...missing.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if ((code !== "ENOENT" && code !== "ENOTDIR") || dirname(at) === at) return resolve(path);
      missing.push(basename(at));
    }
  }
}
