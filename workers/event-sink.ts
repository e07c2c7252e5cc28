// The worker's end of the events port: events are queued and posted as one batch per microtask turn; the main
// thread's prompts and cancels arrive on the same port.
import type { MessagePort } from "node:worker_threads";
import type { WorkerEvent } from "../src/protocol/port.js";

export class EventSink {
  readonly #port: MessagePort;
  #queue: WorkerEvent[] = [];

  constructor(port: MessagePort) {
    this.#port = port;
  }

  post(event: WorkerEvent): void {
    if (this.#queue.length === 0) queueMicrotask(() => this.flush());
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
    this.post({ type: "log_records", from: seq, lines: [line], replayable: [replayable] });
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
    this.post(data ? { type: "log", level, msg, data } : { type: "log", level, msg });
  }
}
