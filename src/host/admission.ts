// Whether the host takes new work: not once teardown has begun, and no session opened while the table is full or
// the host is over its memory budget with no idle session left to hibernate (worker-slots.ts decides that).
import { shuttingDown } from "../request-errors.js";
import type { SessionTable } from "./session/session-table.js";
import type { WorkerSlots } from "./session/worker-slots.js";

export class Admission {
  readonly #slots: WorkerSlots;
  readonly #sessions: Pick<SessionTable, "assertCapacity">;
  #accepting = true;

  constructor(slots: WorkerSlots, sessions: Pick<SessionTable, "assertCapacity">) {
    this.#slots = slots;
    this.#sessions = sessions;
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

  /**
   * Whether a session may open now: refused once teardown has begun, at --max-sessions, and while the host is over its
   * memory budget with no idle session left to hibernate.
   */
  async admit(): Promise<void> {
    this.assertAccepting();
    this.#sessions.assertCapacity();
    await this.#slots.fitMemory(0);
  }
}
