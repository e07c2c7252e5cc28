// The demo's live progress: one line per session (what it is doing now, how many tool calls so far), redrawn in place
// on a terminal; elsewhere (a CI log) one line per session as it finishes.

export interface SessionLine {
  name: string;
  state: "starting" | "working" | "done" | "failed";
  /** What it is doing now: the running tool call's title, "thinking", or how it ended. */
  activity: string;
  toolCalls: number;
}

const ICON: Record<SessionLine["state"], string> = { starting: "·", working: "▸", done: "✓", failed: "✗" };
const REDRAW_MS = 100;

export class LiveView {
  readonly #stream: NodeJS.WriteStream;
  readonly #tty: boolean;
  readonly #started = performance.now();
  #drawn = 0;
  #last = 0;
  readonly #reported = new Set<string>();

  constructor(stream: NodeJS.WriteStream) {
    this.#stream = stream;
    this.#tty = stream.isTTY === true;
  }

  update(lines: readonly SessionLine[], force = false): void {
    if (!this.#tty) return this.#logFinished(lines);
    const now = performance.now();
    if (!force && now - this.#last < REDRAW_MS) return;
    this.#last = now;
    const width = Math.max(40, (this.#stream.columns ?? 100) - 1);
    const seconds = ((now - this.#started) / 1000).toFixed(1);
    const text = [`demo · ${seconds}s`, ...lines.map((line) => render(line))].map(
      (row) => `\x1b[2K${row.slice(0, width)}`,
    );
    this.#stream.write(`${this.#drawn > 0 ? `\x1b[${this.#drawn}A\r` : ""}${text.join("\n")}\n`);
    this.#drawn = text.length;
  }

  #logFinished(lines: readonly SessionLine[]): void {
    for (const line of lines) {
      if ((line.state === "done" || line.state === "failed") && !this.#reported.has(line.name)) {
        this.#reported.add(line.name);
        this.#stream.write(`${render(line)}\n`);
      }
    }
  }
}

function render(line: SessionLine): string {
  return `${ICON[line.state]} ${line.name.padEnd(16)} ${String(line.toolCalls).padStart(2)} tools  ${line.activity}`;
}
