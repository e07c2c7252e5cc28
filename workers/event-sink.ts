// One-way worker → main traffic: events are queued and posted as one batch per microtask turn.
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
