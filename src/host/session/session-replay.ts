// A session/load's replay in progress: the worker sends the history as events of the replay turn, numbered as they
// were shown live, and its turn_end (or the worker's death, or the session's close) ends it.
import { EventClock } from "../../protocol/event-id.js";

export class Replay {
  readonly finished: Promise<void>;
  readonly clock = new EventClock();
  done: () => void = () => {};
  fail: (error: Error) => void = () => {};

  constructor() {
    this.finished = new Promise<void>((resolve, reject) => {
      this.done = resolve;
      this.fail = reject;
    });
    this.finished.catch(() => {});
  }
}
