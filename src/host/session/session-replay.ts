// A session/load's replay in progress: the worker sends the history as events of the replay turn, and its turn_end
// (or the worker's death, or the session's close) ends it.
export class Replay {
  readonly finished: Promise<void>;
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
