// The idle watch on fake time (the clock of a loaded machine is not the watch's business): quiet for its period, it
// aborts and says it was idle; bytes start the period again; the turn's cancel is not idleness.
import { afterEach, expect, it, vi } from "vitest";
import { IdleWatch, ModelIdle } from "../../workers/gateway/idle-watch.js";

afterEach(() => {
  vi.useRealTimers();
});

it("aborts once nothing arrived for its period, and says so apart from the turn's cancel", () => {
  vi.useFakeTimers();
  const turn = new AbortController();
  const watch = new IdleWatch(turn.signal, 60);
  for (let i = 0; i < 4; i++) {
    vi.advanceTimersByTime(59);
    watch.touch();
  }
  expect(watch.signal.aborted).toBe(false);
  vi.advanceTimersByTime(60);
  expect(watch.idle).toBe(true);
  expect(() => watch.check()).toThrow(ModelIdle);
  watch.dispose();

  const cancelled = new IdleWatch(turn.signal, 60);
  turn.abort();
  expect(cancelled.signal.aborted).toBe(true);
  expect(cancelled.idle).toBe(false);
  cancelled.dispose();
});
