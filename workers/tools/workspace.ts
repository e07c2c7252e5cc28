// The session's workspace as the file tools see it: every path resolves against its root, and a path that leaves it
// (`..`, an absolute path elsewhere, a symlink leading outside) is refused. The check is on the real path (realpath),
// for a file that does not exist yet on its nearest existing ancestor.
import { promises as fs } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export class OutsideWorkspace extends Error {}

export interface ResolvedPath {
  /** The real path to open (its parent directories are real; the last part may not exist yet). */
  real: string;
  /** The path as shown to the model: relative to the workspace root. */
  shown: string;
  exists: boolean;
  /** The workspace's real root, which file-io walks down from to open `real`. */
  root: string;
}

export class Workspace {
  readonly root: string;
  readonly #hidden: string[];
  readonly #pinned: boolean;
  #realRoot: Promise<string> | null = null;
  #realHidden: Promise<string[]> | null = null;

  /**
   * hidden: paths inside the workspace that bash's sandbox masks (the state dir, other sessions' workspaces). pinned:
   * root is the real path the host checked against its tenant's roots; it must still be one.
   */
  constructor(root: string, hidden: readonly string[] = [], pinned = false) {
    this.root = resolve(root);
    this.#hidden = [...hidden];
    this.#pinned = pinned;
  }

  /** One more path to refuse (another session's workspace made after this worker started). */
  hide(path: string): void {
    if (this.#hidden.includes(path)) return;
    this.#hidden.push(path);
    this.#realHidden = null;
  }

  realRoot(): Promise<string> {
    this.#realRoot ??= fs.realpath(this.root).then((real) => {
      if (this.#pinned && real !== this.root)
        throw new OutsideWorkspace(`the workspace ${this.root} now leads to ${real} through a symlink; refused`);
      return real;
    });
    return this.#realRoot;
  }

  /** The hidden paths strictly inside the workspace, real (one that holds the workspace hides nothing from it). */
  #hiddenInside(realRoot: string): Promise<string[]> {
    this.#realHidden ??= Promise.all(this.#hidden.map((path) => fs.realpath(path).catch(() => resolve(path)))).then(
      (paths) => paths.filter((path) => path !== realRoot && within(realRoot, path)),
    );
    return this.#realHidden;
  }

  async #refuseHidden(input: string, real: string, realRoot: string): Promise<void> {
    const hidden = (await this.#hiddenInside(realRoot)).find((path) => within(path, real));
    if (hidden)
      throw new OutsideWorkspace(
        `${input} is hidden from this session (${hidden} is another session's workspace or the host's state); refused`,
      );
  }

  async resolve(input: string): Promise<ResolvedPath> {
    if (input.length === 0) throw new OutsideWorkspace("empty path");
    if (input.includes("\0")) throw new OutsideWorkspace("path contains a NUL byte");
    const realRoot = await this.realRoot();
    const lexical = isAbsolute(input) ? resolve(input) : resolve(this.root, input);
    if (!within(this.root, lexical) && !within(realRoot, lexical)) {
      throw new OutsideWorkspace(
        `${input} is outside the workspace (${this.root}); file tools only reach paths inside it`,
      );
    }
    const shown = (real: string) => relative(realRoot, real) || ".";
    try {
      const real = await fs.realpath(lexical);
      if (!within(realRoot, real))
        throw new OutsideWorkspace(`${input} leads outside the workspace through a symlink (to ${real}); refused`);
      await this.#refuseHidden(input, real, realRoot);
      return { real, shown: shown(real), exists: true, root: realRoot };
    } catch (error) {
      if (error instanceof OutsideWorkspace) throw error;
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    // It does not exist (yet). A dangling symlink would be followed by a write: refuse it whatever it points at.
    const link = await fs.lstat(lexical).catch(() => null);
    if (link?.isSymbolicLink())
      throw new OutsideWorkspace(`${input} is a symlink to a path that does not exist; refused`);
    const missing: string[] = [basename(lexical)];
    for (let dir = dirname(lexical); ; dir = dirname(dir)) {
      try {
        const realDir = await fs.realpath(dir);
        if (!within(realRoot, realDir))
          throw new OutsideWorkspace(`${input} leads outside the workspace through a symlink (to ${realDir}); refused`);
        const real = join(realDir, ...missing.reverse());
        await this.#refuseHidden(input, real, realRoot);
        return { real, shown: shown(real), exists: false, root: realRoot };
      } catch (error) {
        if (error instanceof OutsideWorkspace) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT") throw error;
        const dangling = await fs.lstat(dir).catch(() => null);
        if (dangling?.isSymbolicLink())
          throw new OutsideWorkspace(`${input} goes through a symlink to a path that does not exist; refused`);
        if (dirname(dir) === dir) throw new OutsideWorkspace(`${input}: no part of it exists`);
        missing.push(basename(dir));
      }
    }
  }
}

function within(root: string, path: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
