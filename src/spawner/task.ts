// What the spawner and a session connection hold of a running command, however it was started: a process group of
// its own, its output (to a file and to a sink), and its end. A task is over only when its whole group is gone.
import type { TaskEnd } from "../protocol/spawner-replies.js";

/** SIGTERM first; SIGKILL to the group if anything is still there after this long. */
export const KILL_GRACE_MS = 1000;

export interface Task {
  readonly id: string;
  readonly outputFile: string;
  readonly done: Promise<TaskEnd>;
  readonly totalBytes: number;
  readonly end: TaskEnd | null;
  /** Ends the whole group: SIGTERM, then SIGKILL after the grace. Resolves when the group is gone. */
  kill(reason: "killed" | "timeout"): Promise<TaskEnd>;
  /** Synchronous last resort (the spawner is dying): SIGKILL now. */
  killNow(): void;
  /** Backpressure from the reader of the output: stop reading it until resume(). */
  pause(): void;
  resume(): void;
  /**
   * Nobody needs the output as it comes any more, only its last tailBytes once the command has ended: a task that
   * can stops reading it (its output file still gets all of it).
   */
  skipToTail?(tailBytes: number): void;
}

export interface TaskOptions {
  id: string;
  outputFile: string;
  timeoutMs: number | null;
  /** Decoded output, stdout and stderr interleaved in arrival order. */
  onOutput(text: string): void;
  onWarning(message: string, data: Record<string, unknown>): void;
}
