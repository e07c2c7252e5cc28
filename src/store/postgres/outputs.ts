// The full output of a session's commands in a PostgreSQL store. The spawner writes each command's output to a file
// on the host that runs it (as with the state dir); when the session leaves that host (closed, taken over, the host
// ending) its files are copied into ash_outputs, in parts of at most a MiB, and removed here, so whichever host or
// operator has the session next can read them back (`acp-session-host store output`).
import { open, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Pool } from "pg";

const PART_BYTES = 2 ** 20;

/** Copies every file of `dir` into the store under the session, then removes the directory. Returns the files kept. */
export async function uploadOutputs(pool: Pool, sessionId: string, dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    const file = await open(join(dir, name), "r");
    try {
      const buffer = Buffer.alloc(PART_BYTES);
      for (let part = 0, position = 0; ; part++) {
        const { bytesRead } = await file.read(buffer, 0, PART_BYTES, position);
        if (bytesRead === 0 && part > 0) break;
        await pool.query(
          "INSERT INTO ash_outputs (session_id, name, part, content) VALUES ($1, $2, $3, $4) ON CONFLICT (session_id, name, part) DO UPDATE SET content = EXCLUDED.content",
          [sessionId, name, part, buffer.subarray(0, bytesRead)],
        );
        position += bytesRead;
        if (bytesRead < PART_BYTES) break;
      }
    } finally {
      await file.close();
    }
  }
  await rm(dir, { recursive: true, force: true });
  return names.length;
}

/** The names of a session's stored outputs. */
export async function outputNames(pool: Pool, sessionId: string): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    "SELECT DISTINCT name FROM ash_outputs WHERE session_id = $1 ORDER BY name",
    [sessionId],
  );
  return rows.map((row) => row.name);
}

/** One stored output, whole (null when there is none by that name). */
export async function readOutput(pool: Pool, sessionId: string, name: string): Promise<Buffer | null> {
  const { rows } = await pool.query<{ content: Buffer }>(
    "SELECT content FROM ash_outputs WHERE session_id = $1 AND name = $2 ORDER BY part",
    [sessionId, name],
  );
  return rows.length === 0 ? null : Buffer.concat(rows.map((row) => row.content));
}
