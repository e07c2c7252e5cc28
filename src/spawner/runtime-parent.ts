// Where the spawner's runtime directory goes: its socket, and every running command's output file. A command's
// output is written while it runs and read back at once; on the disk that holds the session logs, a command printing
// tens of MB left that much writeback in front of every other session's turn-end fsync (docs/performance.md,
// "Measured choices in the code"). So a RAM-backed
// directory is preferred when it has room: $XDG_RUNTIME_DIR, then /dev/shm (a container's is often 64 MiB: then the
// temp dir).
import { constants } from "node:fs";
import { access, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";

const MIN_FREE_BYTES = 1024 ** 3;

export async function runtimeParent(configured: string | undefined): Promise<string> {
  if (configured) return configured;
  for (const dir of [process.env.XDG_RUNTIME_DIR, "/dev/shm"]) {
    if (!dir?.startsWith("/")) continue;
    try {
      await access(dir, constants.W_OK | constants.X_OK);
      const fs = await statfs(dir);
      if (fs.bavail * fs.bsize >= MIN_FREE_BYTES) return dir;
    } catch {
      // not there, not ours, or not a directory: the next one
    }
  }
  return tmpdir();
}
