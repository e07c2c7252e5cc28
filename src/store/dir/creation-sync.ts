// Makes new session logs durable off the request path: session/new answers once the header is written, and this
// flushes each new file and then the directory that names it, one directory fsync for every file created
// meanwhile (group commit). A burst of session/new costs one directory fsync, not one per session.
import { open } from "node:fs/promises";
import type { Logger } from "../../logger.js";

export class CreationSync {
  readonly #dir: string;
  readonly #logger: Logger;
  #pending: string[] = [];
  #running: Promise<void> | null = null;

  constructor(dir: string, logger: Logger) {
    this.#dir = dir;
    this.#logger = logger;
  }

  schedule(file: string): void {
    this.#pending.push(file);
    this.#running ??= this.#drain().finally(() => (this.#running = null));
  }

  /** Resolves once every file scheduled so far is on disk. */
  async flushed(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #drain(): Promise<void> {
    while (this.#pending.length > 0) {
      const files = this.#pending.splice(0);
      // One flush at a time: the libuv threadpool (4 threads, shared by every thread of the process) stays free for
      // the file work requests wait on. A burst makes this lag behind, never the answers.
      for (const file of files)
        await sync(file, "r").catch((error: unknown) =>
          this.#logger.warn({ file, err: error }, "new session log not flushed"),
        );
      await sync(this.#dir, "r").catch((error: unknown) =>
        this.#logger.warn({ dir: this.#dir, err: error }, "sessions directory not flushed"),
      );
    }
  }
}

async function sync(path: string, flags: string): Promise<void> {
  const handle = await open(path, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
