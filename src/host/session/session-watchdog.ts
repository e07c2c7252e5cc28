// The watchdog's pings to an idle session's worker: one at a time; a ping unanswered for stallMs means the worker's
// event loop is blocked (or its thread gone astray).
import type { WorkerLease } from "../../pool/worker-lease.js";

export class PingWatch {
  /** The ping still unanswered, if any: its id and when it was sent. */
  #ping: { id: number; sentAt: number } | null = null;
  #pings = 0;

  /**
   * One look: lease is the idle worker to ping (null: none to judge now, and an unanswered ping is forgotten).
   * true when its ping has gone unanswered for stallMs (the ping is forgotten then too).
   */
  stalled(lease: Pick<WorkerLease, "post"> | null, stallMs: number, now: number): boolean {
    if (!lease) {
      this.#ping = null;
      return false;
    }
    if (this.#ping === null) {
      this.#ping = { id: ++this.#pings, sentAt: now };
      lease.post({ type: "ping", id: this.#ping.id });
      return false;
    }
    if (now - this.#ping.sentAt < stallMs) return false;
    this.#ping = null;
    return true;
  }

  pong(id: number): void {
    if (this.#ping?.id === id) this.#ping = null;
  }
}
