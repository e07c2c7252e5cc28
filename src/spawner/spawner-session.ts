// What the spawner keeps per session: its workspace, where its output goes, and its background tasks.
// Background tasks are keyed by session: a connection can only ever reach the tasks of the session it was granted.
import { mkdir } from "node:fs/promises";
import type { SessionSandbox } from "./session-sandbox.js";
import type { Task } from "./task.js";

/** Unread background output kept in memory; older unread output is let go of (the output file keeps all). */
export const UNREAD_LIMIT_CHARS = 1024 * 1024;
/** Finished background tasks remembered per session, so their exit status and last output can still be read. */
const FINISHED_KEPT = 32;

/**
 * Output nobody has read yet, bounded to its last `limitChars`: older output is let go of (the output file keeps
 * all). A background task's unread output, and the end of a foreground command's output past what was streamed.
 */
export class UnreadOutput {
  readonly #limit: number;
  #chunks: string[] = [];
  #chars = 0;
  #dropped = 0;

  constructor(limitChars = UNREAD_LIMIT_CHARS) {
    this.#limit = limitChars;
  }

  append(text: string): void {
    this.#chunks.push(text);
    this.#chars += text.length;
    while (this.#chars > this.#limit) {
      const first = this.#chunks[0]!;
      const excess = this.#chars - this.#limit;
      const gone = first.length <= excess ? first : first.slice(0, excess);
      if (gone === first) this.#chunks.shift();
      else this.#chunks[0] = first.slice(excess);
      this.#chars -= gone.length;
      this.#dropped += Buffer.byteLength(gone);
    }
  }

  /** Output since the previous take, and how many bytes of it were let go of. */
  take(): { output: string; droppedBytes: number } {
    const taken = { output: this.#chunks.join(""), droppedBytes: this.#dropped };
    this.#chunks = [];
    this.#chars = 0;
    this.#dropped = 0;
    return taken;
  }
}

export interface BackgroundTask {
  task: Task;
  unread: UnreadOutput;
}

export class SpawnerSession {
  readonly id: string;
  /** Real path of the workspace. */
  readonly cwd: string;
  readonly outputDir: string;
  readonly background = new Map<string, BackgroundTask>();
  #outputDirReady: Promise<void> | null = null;
  /** The sandbox new commands go to; retired ones run out their commands. */
  #sandbox: SessionSandbox | null = null;
  readonly #retired = new Set<SessionSandbox>();
  #queue: Promise<unknown> = Promise.resolve();

  constructor(id: string, cwd: string, outputDir: string) {
    this.id = id;
    this.cwd = cwd;
    this.outputDir = outputDir;
  }

  get runningBackground(): number {
    let running = 0;
    for (const bg of this.background.values()) if (!bg.task.end) running++;
    return running;
  }

  ensureOutputDir(): Promise<void> {
    this.#outputDirReady ??= mkdir(this.outputDir, { recursive: true, mode: 0o700 }).then(() => {});
    return this.#outputDirReady;
  }

  get sandbox(): SessionSandbox | null {
    return this.#sandbox;
  }

  /** Makes sandbox the one new commands go to; the one before is kept until it has ended. */
  adopt(sandbox: SessionSandbox): void {
    const before = this.#sandbox;
    if (before && !before.ended) {
      this.#retired.add(before);
      before.onEnded(() => this.#retired.delete(before));
    }
    this.#sandbox = sandbox;
  }

  sandboxes(): SessionSandbox[] {
    return [...(this.#sandbox ? [this.#sandbox] : []), ...this.#retired];
  }

  /** Runs steps one at a time: two commands that arrive together must not each start a sandbox. */
  serialize<T>(step: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(step);
    this.#queue = result.catch(() => {});
    return result;
  }

  /** Forgets the oldest finished tasks beyond the ones kept. */
  prune(): void {
    const finished = [...this.background.entries()].filter(([, bg]) => bg.task.end);
    for (const [id] of finished.slice(0, Math.max(0, finished.length - FINISHED_KEPT))) this.background.delete(id);
  }
}
