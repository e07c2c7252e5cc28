// A replay of the session's log in progress: session/load's (to the owning connection) or an attach's (to that
// attached client only). The worker sends the history as events of the replay turn, numbered as they were shown
// live, and its turn_end (or the worker's death, or the session's close) ends it.
import { EventClock } from "../../protocol/event-id.js";
import type { Attachment } from "../attach/attachment.js";

export class Replay {
  readonly finished: Promise<void>;
  /** The attached client it is for; null: the owning connection (session/load). */
  readonly target: Attachment | null;
  readonly clock = new EventClock();
  done: () => void = () => {};
  fail: (error: Error) => void = () => {};

  constructor(target: Attachment | null = null) {
    this.target = target;
    this.finished = new Promise<void>((resolve, reject) => {
      this.done = resolve;
      this.fail = reject;
    });
    this.finished.catch(() => {});
  }
}
