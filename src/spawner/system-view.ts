// What a confined sandbox shows of the machine: the system's read-only directories, as they are on the host (a
// merged-/usr machine's /bin is a symlink to usr/bin, and stays one), and nothing else of its root: no home, no
// /srv, no /var, no state dir, no tokens file. /etc is shown without its secrets (system-secrets.ts masks them).
import { lstat, readlink } from "node:fs/promises";

/** The system directories a command needs to run: programs, libraries, and /etc's configuration. */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

export type SystemEntry = { path: string; kind: "dir" } | { path: string; kind: "symlink"; target: string };

/** The system directories that exist here, each a directory or a symlink to keep as one. */
export async function systemView(): Promise<SystemEntry[]> {
  const found = await Promise.all(
    SYSTEM_DIRS.map(async (path): Promise<SystemEntry | null> => {
      const info = await lstat(path).catch(() => null);
      if (info?.isSymbolicLink()) return { path, kind: "symlink", target: await readlink(path) };
      if (info?.isDirectory()) return { path, kind: "dir" };
      return null;
    }),
  );
  return found.filter((entry): entry is SystemEntry => entry !== null);
}

/** bwrap's arguments for the system view: read-only binds, symlinks made again. */
export function systemArgs(view: readonly SystemEntry[]): string[] {
  return view.flatMap((entry) =>
    entry.kind === "dir" ? ["--ro-bind", entry.path, entry.path] : ["--symlink", entry.target, entry.path],
  );
}
