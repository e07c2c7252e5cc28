// Commands for a session's worker (its mode, model, system prompt, a workspace to hide, a new spawner grant or
// gateway port), told through one path with one policy. The record is the truth and a worker is made from it:
//
// - the record keeps the command first, so a worker drawn from now on has it in its init;
// - a worker still starting (drawn already, not yet open) may have read the record before: the command waits until
//   the start has finished, the record keeps it again (a stored session's first worker adopts its log's mode and
//   model as it opens), and it goes to the worker that opened;
// - a live worker is told at once, and the command resolves once the worker has it;
// - no worker (dormant, waiting for a slot, releasing, closing): the record is enough.
//
// A command never fails its caller: the record has it whatever the worker does. A worker that dies first is no
// error (the one that replaces it is made from the record); one that refuses it is logged with the session id.
import type * as Comlink from "comlink";
import type { SessionWorkerApi } from "../../protocol/session-worker-api.js";
import { WorkerGone, type WorkerLease } from "../../pool/worker-lease.js";
import type { Logger } from "../../logger.js";
import type { SessionPhaseMachine } from "./session-phase.js";

export interface WorkerCommand {
  /** What the log calls it (the worker API's method). */
  readonly name: keyof SessionWorkerApi;
  /** Keeps it in the record (the session's settings); none when the worker's init reads it from the host anyway. */
  keep?(): void;
  /** Tells the live worker. */
  send(api: Comlink.Remote<SessionWorkerApi>): Promise<void>;
}

export class WorkerRelays {
  readonly #state: SessionPhaseMachine;
  readonly #live: () => Pick<WorkerLease, "call"> | null;
  readonly #logger: Logger;

  /** live: the session's opened worker, if it is alive. */
  constructor(state: SessionPhaseMachine, live: () => Pick<WorkerLease, "call"> | null, logger: Logger) {
    this.#state = state;
    this.#live = live;
    this.#logger = logger;
  }

  async tell(command: WorkerCommand): Promise<void> {
    command.keep?.();
    if (this.#state.phase === "starting") {
      await this.started();
      command.keep?.();
    }
    const lease = this.#live();
    if (!lease) return;
    try {
      await lease.call((api) => command.send(api));
    } catch (error) {
      if (error instanceof WorkerGone)
        this.#logger.debug(
          { command: command.name },
          "session worker ended before it had the command: the next has it",
        );
      else this.#logger.warn({ err: error, command: command.name }, "session worker refused a command");
    }
  }

  /** Resolves once no worker is starting (at once when none is): the worker drawn has opened, or failed to. */
  async started(): Promise<void> {
    while (this.#state.phase === "starting") await this.#state.changed();
  }
}
