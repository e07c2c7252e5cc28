import { expect, it } from "vitest";
import { IdleWatch, ModelIdle } from "../../workers/models/idle-watch.js";

it("aborts once nothing arrived for its period, and says so apart from the turn's cancel", async () => {
  const turn = new AbortController();
  const watch = new IdleWatch(turn.signal, 60);
  for (let i = 0; i < 4; i++) {
    await new Promise((resolve) => setTimeout(resolve, 30));
    watch.touch();
  }
  expect(watch.signal.aborted).toBe(false);
  await new Promise((resolve) => setTimeout(resolve, 120));
  expect(watch.idle).toBe(true);
  expect(() => watch.check()).toThrow(ModelIdle);
  watch.dispose();

  const cancelled = new IdleWatch(turn.signal, 60);
  turn.abort();
  expect(cancelled.signal.aborted).toBe(true);
  expect(cancelled.idle).toBe(false);
  cancelled.dispose();
});
