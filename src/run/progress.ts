// A one-line live progress bar on stderr, redrawn in place; only when stderr is a terminal.
import type { DriveProgress } from "./drive.js";

const WIDTH = 28;
const REDRAW_MS = 80;

export class ProgressBar {
  readonly #stream: NodeJS.WriteStream;
  readonly #started = performance.now();
  #last = 0;
  #shown = false;

  private constructor(stream: NodeJS.WriteStream) {
    this.#stream = stream;
  }

  /** A bar on `stream` when it is a TTY, otherwise null (no output at all). */
  static forStream(stream: NodeJS.WriteStream): ProgressBar | null {
    return stream.isTTY ? new ProgressBar(stream) : null;
  }

  update(progress: DriveProgress): void {
    const now = performance.now();
    if (progress.done < progress.total && now - this.#last < REDRAW_MS) return;
    this.#last = now;
    const filled = progress.total === 0 ? WIDTH : Math.round((progress.done / progress.total) * WIDTH);
    const bar = "█".repeat(filled) + "░".repeat(WIDTH - filled);
    const failed = progress.failed > 0 ? ` · ${progress.failed} failed` : "";
    const seconds = ((now - this.#started) / 1000).toFixed(1);
    this.#stream.write(`\r\x1b[2K${bar} ${progress.done}/${progress.total} prompts${failed} · ${seconds}s`);
    this.#shown = true;
  }

  /** Erases the bar so the summary starts on a clean line. */
  clear(): void {
    if (this.#shown) this.#stream.write("\r\x1b[2K");
    this.#shown = false;
  }
}
