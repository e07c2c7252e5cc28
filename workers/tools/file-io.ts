// File access for the file tools: opened without following a final symlink, on paths Workspace.resolve checked.
import { constants, promises as fs } from "node:fs";

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;

/** At most `limit` bytes from the start of the file, and the file's size. */
export async function readHead(path: string, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const handle = await fs.open(path, READ_FLAGS);
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

export async function readText(path: string): Promise<string> {
  const handle = await fs.open(path, READ_FLAGS);
  try {
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}

export async function writeText(path: string, content: string): Promise<number> {
  const handle = await fs.open(path, WRITE_FLAGS, 0o644);
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
