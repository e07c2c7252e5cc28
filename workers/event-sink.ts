// The worker's end of the events port: events are queued and posted as one batch per turn of the event loop; the main
// thread's prompts and cancels arrive on the same port. What is posted for the client counts against the session's
// output window (src/protocol/output-window.ts): past it, the producers wait for room (room) before their next event.
import type { MessagePort } from "node:worker_threads";
import { outputBytes, type OutputWindow } from "../src/protocol/output-window.js";
import type { WorkerEvent } from "../src/protocol/worker-events.js";
import { pieces } from "./event-pieces.js";

export class EventSink {
  readonly #port: MessagePort;
  readonly #window: OutputWindow | null;
  #windowBytes = Number.POSITIVE_INFINITY;
  #queue: WorkerEvent[] = [];
  #shown: () => number = () => 0;

  /** window: null runs without one (a worker driven by hand, as the build's warm-up does). */
  constructor(port: MessagePort, window: OutputWindow | null) {
    this.#port = port;
    this.#window = window;
  }

  /** From now on the worker waits once this much of its output is on its way (the session's init says how much). */
  limitOutput(windowBytes: number): void {
    this.#windowBytes = windowBytes;
  }

  /** Where the log's count of replayable entries is read: an event that shows an entry carries it (seq). */
  numberFrom(shown: () => number): void {
    this.#shown = shown;
  }

  /** An event; one that shows the entry just journaled is numbered after it (a replay's events come numbered). */
  post(event: WorkerEvent): void {
    if (showsEntry(event) && event.seq === undefined) event.seq = this.#shown();
    this.postUnnumbered(event);
  }

  /** What shows no entry of the log (a streamed delta of a message not yet journaled): no seq. */
  postUnnumbered(event: WorkerEvent): void {
    this.#window?.spend(outputBytes(event));
    // Once per turn of the event loop, not per microtask: steps of a turn that wait on no I/O go as one message.
    if (this.#queue.length === 0) setImmediate(() => this.flush());
    this.#queue.push(event);
  }

  /**
   * One record of a session on a store the host writes, queued like an event (before the events that show it);
   * consecutive records travel as one log_records event.
   */
  postRecord(seq: number, line: string, replayable: boolean): void {
    const last = this.#queue.at(-1);
    if (last?.type === "log_records" && last.from + last.lines.length === seq) {
      last.lines.push(line);
      last.replayable.push(replayable);
      return;
    }
    this.postUnnumbered({ type: "log_records", from: seq, lines: [line], replayable: [replayable] });
  }

  /** Whether the client is a window behind: the producer should wait for room before its next event. */
  get behind(): boolean {
    return this.#window !== null && this.#window.held >= this.#windowBytes;
  }

  /** Resolves once the client is less than a window behind, or the signal aborts (at once when it is not behind). */
  async room(signal?: AbortSignal): Promise<void> {
    if (!this.behind || signal?.aborted) return;
    this.log("debug", "session output waits: its client has not yet taken a window of it", {
      windowBytes: this.#windowBytes,
    });
    // What waits in the queue is part of what is held: the main thread must have it to hand it on.
    this.flush();
    await this.#window!.room(this.#windowBytes, signal);
  }

  /** Posts an event of any size in pieces, waiting for room after each; nothing more once the signal aborts. */
  async send(event: WorkerEvent, signal?: AbortSignal): Promise<void> {
    for (const piece of pieces(event)) {
      if (signal?.aborted) return;
      this.post(piece);
      if (this.behind) await this.room(signal);
    }
  }

  /** What the main thread posts on this port (prompts, cancels). */
  onMessage(listener: (data: unknown) => void): void {
    this.#port.on("message", listener);
  }

  flush(): void {
    if (this.#queue.length === 0) return;
    const batch = this.#queue;
    this.#queue = [];
    this.#port.postMessage(batch);
  }

  log(level: "debug" | "info" | "warn" | "error", msg: string, data?: Record<string, unknown>): void {
    this.postUnnumbered(data ? { type: "log_line", level, msg, data } : { type: "log_line", level, msg });
  }
}

type Numbered = Extract<WorkerEvent, { seq?: number }>;

/** The events that show an entry as it is journaled (and that a replay of the entry shows again). */
function showsEntry(event: WorkerEvent): event is Numbered {
  switch (event.type) {
    case "assistant_message":
    case "thought":
    case "user_message":
    case "tool_call":
    case "plan":
      return true;
    case "tool_call_update":
      return event.result !== undefined;
    case "compaction":
      return event.status === "completed";
    default:
      return false;
  }
}
