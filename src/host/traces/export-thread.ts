// The main thread's hold on the trace export thread (workers/trace-export/, src/protocol/trace-export.ts): finished
// spans wait here a moment and go to the thread in one message per batch. The bound on spans not yet exported
// is kept here, where spans are added, so a span past it is dropped and counted at once whatever the thread is doing;
// the thread's reports of each export's outcome free the bound and count failures. Started again if it ever dies
// (the spans it held are counted as failed).
import { Worker } from "node:worker_threads";
import { asExportReport, type ExportCommand, type ExportThreadData } from "../../protocol/trace-export.js";
import type { SpanData } from "../../protocol/trace.js";

const EXPORT_ENTRY = new URL("../../../workers/bundle/trace-export.js", import.meta.url);
/** How long a span waits for others before its batch is sent: one message and one wake of the thread per batch. */
const SEND_AFTER_MS = 100;
const SEND_AT_SPANS = 256;
/** A thread that died is started again after this long, twice as long after each death until one works again. */
const RESTART_AFTER_MS = 1000;
const RESTART_AFTER_MAX_MS = 60_000;

export interface ExportThreadOptions extends ExportThreadData {
  /** Told when exports start failing and when they work again (not once per batch). */
  onHealth(failing: boolean, error: string | null): void;
  /** Told when the thread fails or ends unasked. */
  onFault(error: string): void;
}

export class TraceExportThread {
  readonly #options: ExportThreadOptions;
  #worker: Worker | null;
  #queue: SpanData[] = [];
  #timer: NodeJS.Timeout | null = null;
  /** Spans sent to the thread that no export has settled yet. */
  #unsettled = 0;
  #dropped = 0;
  #failed = 0;
  #failing = false;
  #closing = false;
  #restartAfterMs = RESTART_AFTER_MS;
  #onShut: (() => void) | null = null;

  constructor(options: ExportThreadOptions) {
    this.#options = options;
    this.#worker = this.#start();
  }

  /** Spans dropped because the bound was reached. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Spans whose export failed, and spans a thread held when it died. */
  get failed(): number {
    return this.#failed;
  }

  add(span: SpanData): void {
    if (this.#queue.length + this.#unsettled >= this.#options.queueLimit) {
      this.#dropped++;
      return;
    }
    this.#queue.push(span);
    if (this.#queue.length >= SEND_AT_SPANS) this.#send();
    else this.#timer ??= setTimeout(() => this.#send(), SEND_AFTER_MS).unref();
  }

  /** Sends what is queued, asks the thread to export it, and ends the thread once it has or deadlineMs passed. */
  async shutdown(deadlineMs: number): Promise<void> {
    this.#closing = true;
    this.#send();
    const worker = this.#worker;
    if (!worker) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        this.#onShut = resolve;
        worker.once("exit", () => resolve());
        this.#post({ type: "shutdown" });
      }),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs))),
    ]);
    clearTimeout(timer);
    await worker.terminate();
  }

  #send(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#queue.length === 0 || !this.#worker) return;
    this.#unsettled += this.#queue.length;
    this.#post({ type: "spans", spans: this.#queue });
    this.#queue = [];
  }

  #post(command: ExportCommand): void {
    this.#worker?.postMessage(command);
  }

  #start(): Worker {
    const data: ExportThreadData = { scope: this.#options.scope, queueLimit: this.#options.queueLimit };
    const worker = new Worker(EXPORT_ENTRY, { env: process.env, workerData: data });
    worker.unref();
    worker.on("message", (message: unknown) => this.#onReport(message));
    worker.on("error", (error) => this.#options.onFault(`the trace export thread failed: ${String(error)}`));
    worker.on("exit", () => {
      if (this.#closing || worker !== this.#worker) return;
      this.#failed += this.#unsettled;
      this.#unsettled = 0;
      this.#worker = null;
      const delayMs = this.#restartAfterMs;
      this.#restartAfterMs = Math.min(RESTART_AFTER_MAX_MS, delayMs * 2);
      this.#options.onFault(
        `the trace export thread ended: started again in ${delayMs} ms; the spans it held are counted as failed`,
      );
      setTimeout(() => {
        if (this.#closing) return;
        this.#worker = this.#start();
        this.#send();
      }, delayMs).unref();
    });
    return worker;
  }

  #onReport(message: unknown): void {
    const report = asExportReport(message);
    if (report === null) return;
    this.#restartAfterMs = RESTART_AFTER_MS;
    if (report.type === "shut") {
      this.#onShut?.();
      return;
    }
    this.#unsettled = Math.max(0, this.#unsettled - report.spans);
    if (report.failed) this.#failed += report.spans;
    if (report.failed !== this.#failing) {
      this.#failing = report.failed;
      this.#options.onHealth(report.failed, report.error);
    }
  }
}
