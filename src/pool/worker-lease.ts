// One session's hold on one worker thread: the typed command API, the validated event stream, and the end.
import type { MessagePort } from "node:worker_threads";
import * as Comlink from "comlink";
import { compile } from "zod/mini";
import { outputBytes, type OutputWindow } from "../protocol/output-window.js";
import { type HostMessage } from "../protocol/port.js";
import { portEndpoint } from "../protocol/port-endpoint.js";
import type { SessionWorkerApi } from "../protocol/session-worker-api.js";
import { WorkerEventBatch, type WorkerEvent } from "../protocol/worker-events.js";

/** Every event from every worker passes here: the contract's schema, compiled to a generated validator once. */
const eventBatch = compile(WorkerEventBatch);

export interface WorkerExit {
  /** "terminated" when the host ended the worker; "crashed" when it died on its own (error, OOM). */
  kind: "terminated" | "crashed";
  cause: string;
}

/**
 * Takes a batch of events; returns what settles once the output they made has left for the client (or was dropped),
 * or nothing when they made none: the worker's output window is released then.
 */
export type EventsListener = (events: WorkerEvent[]) => Promise<void> | void;

export class WorkerGone extends Error {
  constructor(readonly exit: WorkerExit) {
    super(`session worker ${exit.kind}: ${exit.cause}`);
  }
}

export class WorkerLease {
  readonly exited: Promise<WorkerExit>;
  readonly #api: Comlink.Remote<SessionWorkerApi>;
  readonly #commands: MessagePort;
  readonly #events: MessagePort;
  readonly #abort: AbortController;
  #exit: WorkerExit | null = null;
  /** The rejecters of the calls in flight: each is told at once if the worker dies first, and let go when it ends. */
  readonly #calls = new Set<(gone: WorkerGone) => void>();
  #onEvents: EventsListener = () => {};
  #onInvalid: (error: string) => void = () => {};

  constructor(
    commands: MessagePort,
    events: MessagePort,
    run: Promise<never>,
    abort: AbortController,
    window: OutputWindow,
  ) {
    this.#commands = commands;
    this.#events = events;
    this.#abort = abort;
    this.#api = Comlink.wrap<SessionWorkerApi>(portEndpoint(commands));
    events.on("message", (data: unknown) => {
      const parsed = eventBatch.safeParse(data);
      if (!parsed.success) return this.#onInvalid(parsed.error.message);
      let bytes = 0;
      for (const event of parsed.data) bytes += outputBytes(event);
      const handedOn = this.#onEvents(parsed.data);
      // The worker's window opens again as its output leaves: at once when nothing was sent on.
      if (bytes === 0) return;
      const release = () => window.release(bytes);
      if (handedOn) void handedOn.then(release, release);
      else release();
    });
    this.exited = run.then(
      () => this.#settle({ kind: "crashed", cause: "session task returned" }),
      (error: unknown) =>
        this.#settle(
          this.#abort.signal.aborted
            ? { kind: "terminated", cause: "terminated by the host" }
            : { kind: "crashed", cause: describe(error) },
        ),
    );
  }

  get alive(): boolean {
    return this.#exit === null;
  }

  /** Events arrive here in the order the worker posted them; only valid batches are delivered. */
  listen(onEvents: EventsListener, onInvalid: (error: string) => void): void {
    this.#onEvents = onEvents;
    this.#onInvalid = onInvalid;
  }

  /** The hot path to the worker: one message, no reply (its turn's events are the answer). */
  post(message: HostMessage): void {
    if (!this.#exit) this.#events.postMessage(message);
  }

  /**
   * Calls a command; rejects with WorkerGone instead of hanging when the worker dies first. Not a race against
   * `exited`: each such race hung a reaction on a promise that settles only when the worker ends, and with it the
   * call's answer (a replay's page), for as long as the worker lived.
   */
  call<T>(command: (api: Comlink.Remote<SessionWorkerApi>) => Promise<T>): Promise<T> {
    if (this.#exit) return Promise.reject(new WorkerGone(this.#exit));
    return new Promise<T>((resolve, reject) => {
      this.#calls.add(reject);
      const done = () => this.#calls.delete(reject);
      command(this.#api).then(
        (answer) => {
          done();
          resolve(answer);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  }

  /** Ends the thread at once (piscina terminates the worker of an aborted task). */
  terminate(): Promise<WorkerExit> {
    if (!this.#exit) this.#abort.abort();
    return this.exited;
  }

  #settle(exit: WorkerExit): WorkerExit {
    this.#exit = exit;
    for (const reject of this.#calls) reject(new WorkerGone(exit));
    this.#calls.clear();
    this.#commands.close();
    this.#events.close();
    return exit;
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}
