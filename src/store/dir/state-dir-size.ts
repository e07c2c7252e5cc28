// The state dir's size on disk for the metrics, measured by a walk in the background (at most every REFRESH_MS,
// and only while something asks): a scrape reads the last figure, never waits for a walk of 100,000 sessions'
// files. Two files are looked at a time, so the walk leaves the libuv threadpool to the requests.
import { lstat, opendir } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../logger.js";

const REFRESH_MS = 60_000;
const CONCURRENCY = 2;

export class StateDirSize {
  readonly #dir: string;
  readonly #logger: Logger;
  #bytes: number | null = null;
  #measuredAt = -Infinity;
  #walking: Promise<void> | null = null;

  constructor(dir: string, logger: Logger) {
    this.#dir = dir;
    this.#logger = logger;
  }

  /** The last figure (bytes allocated to its files and directories; null before the first walk has ended); starts a walk when it is stale. */
  bytes(): number | null {
    if (!this.#walking && performance.now() - this.#measuredAt >= REFRESH_MS) void this.refresh();
    return this.#bytes;
  }

  /** Walks the state dir now (or joins the walk under way). */
  refresh(): Promise<void> {
    this.#walking ??= diskBytes(this.#dir)
      .then((bytes) => {
        this.#bytes = bytes;
      })
      .catch((error: unknown) => this.#logger.warn({ err: error, dir: this.#dir }, "state dir size not measured"))
      .finally(() => {
        this.#measuredAt = performance.now();
        this.#walking = null;
      });
    return this.#walking;
  }
}

/** Bytes allocated to `root` and everything under it (st_blocks × 512; a file gone meanwhile counts 0). */
export async function diskBytes(root: string): Promise<number> {
  let total = 0;
  const pending: string[] = [root];
  const next = async (): Promise<void> => {
    for (let path = pending.pop(); path !== undefined; path = pending.pop()) {
      const stat = await lstat(path).catch(() => null);
      if (!stat) continue;
      total += stat.blocks * 512;
      if (!stat.isDirectory()) continue;
      const dir = await opendir(path, { bufferSize: 256 }).catch(() => null);
      if (!dir) continue;
      for await (const entry of dir) pending.push(join(path, entry.name));
    }
  };
  // Workers take paths until none is left; a directory's entries are added before its worker takes the next.
  let active: Array<Promise<void>> = [];
  do {
    active = Array.from({ length: Math.min(CONCURRENCY, Math.max(1, pending.length)) }, next);
    await Promise.all(active);
  } while (pending.length > 0);
  return total;
}
