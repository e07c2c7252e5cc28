// Whether the host takes new work: not once teardown has begun, and no new session while it is over its memory budget
// with no idle session left to hibernate (worker-slots.ts decides that).
import { shuttingDown } from "../request-errors.js";
import type { WorkerSlots } from "./session/worker-slots.js";

export class Admission {
  readonly #slots: WorkerSlots;
  #accepting = true;

  constructor(slots: WorkerSlots) {
    this.#slots = slots;
  }

  get accepting(): boolean {
    return this.#accepting;
  }

  stopAccepting(): void {
    this.#accepting = false;
  }

  assertAccepting(): void {
    if (!this.#accepting) throw shuttingDown();
  }

  /** session/new is refused while the host is over its memory budget and no idle session is left to hibernate. */
  assertMemory(): Promise<void> {
    return this.#slots.fitMemory(0);
  }
}
