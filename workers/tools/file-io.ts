// File access for the file tools, on paths Workspace.resolve checked. A checked path is opened by walking down from
// the workspace root one component at a time (through /proc/self/fd, as openat would) without following any
// symlink: a directory swapped for a symlink after the check makes the open fail instead of leading outside.
import { constants, promises as fs, type promises } from "node:fs";
import { relative, sep } from "node:path";
import { OutsideWorkspace, type ResolvedPath } from "./workspace.js";

type FileHandle = promises.FileHandle;

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

async function openInside(target: ResolvedPath, flags: number, createDirs = false): Promise<FileHandle> {
  const parts = relative(target.root, target.real)
    .split(sep)
    .filter((part) => part.length > 0);
  if (parts[0] === "..") throw new OutsideWorkspace(`${target.shown} is outside the workspace; refused`);
  const last = parts.pop();
  if (last === undefined) return fs.open(target.root, flags);
  let dir = await fs.open(target.root, DIR_FLAGS);
  try {
    for (const part of parts) {
      const path = `/proc/self/fd/${dir.fd}/${part}`;
      if (createDirs)
        await fs.mkdir(path).catch((error: unknown) => (code(error) === "EEXIST" ? undefined : Promise.reject(error)));
      const next = await fs.open(path, DIR_FLAGS);
      await dir.close();
      dir = next;
    }
    return await fs.open(`/proc/self/fd/${dir.fd}/${last}`, flags, 0o644);
  } catch (error) {
    if (code(error) === "ELOOP" || code(error) === "ENOTDIR")
      throw new OutsideWorkspace(
        `${target.shown} changed while it was opened (a symlink appeared on its path); refused`,
      );
    throw error;
  } finally {
    await dir.close();
  }
}

/** At most `limit` bytes from the start of the file, and the file's size. */
export async function readHead(target: ResolvedPath, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const handle = await openInside(target, READ_FLAGS);
  try {
    const size = (await handle.stat()).size;
    const bytes = Buffer.alloc(Math.min(size, limit));
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: bytes.subarray(0, filled), size };
  } finally {
    await handle.close();
  }
}

export async function readText(target: ResolvedPath): Promise<string> {
  const handle = await openInside(target, READ_FLAGS);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

/** Writes the whole file; createDirs makes its missing parent directories on the same walk. */
export async function writeText(target: ResolvedPath, content: string, createDirs = false): Promise<number> {
  const handle = await openInside(target, WRITE_FLAGS, createDirs);
  try {
    const bytes = Buffer.from(content);
    await handle.writeFile(bytes);
    return bytes.length;
  } finally {
    await handle.close();
  }
}

export function looksBinary(bytes: Buffer): boolean {
  return bytes.subarray(0, 8192).includes(0);
}
