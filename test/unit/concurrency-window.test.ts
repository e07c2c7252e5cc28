// The AIMD window of a provider endpoint: halves on a refusal (once per window it sent), grows by one per window's
// worth of successes, never past the operator's cap nor below one.
import { expect, it } from "vitest";
import { ConcurrencyWindow, INITIAL_WINDOW } from "../../workers/gateway/concurrency-window.js";

it("halves on a refusal, once for the requests sent before it, and grows back one per window of successes", () => {
  const window = new ConcurrencyWindow(null);
  expect(window.size).toBe(INITIAL_WINDOW);
  for (let i = 0; i < 4 + 5 + 6 + 7; i++) window.grow();
  expect(window.size).toBe(8);
  const sentIn = window.epoch;
  window.shrink(sentIn);
  expect(window.size).toBe(4);
  // Refusals of requests sent under the old window say nothing new.
  window.shrink(sentIn);
  expect(window.size).toBe(4);
  for (let i = 0; i < 4; i++) window.grow();
  expect(window.size).toBe(5);
  for (let i = 0; i < 10; i++) window.shrink(window.epoch);
  expect(window.size).toBe(1);
});

it("never grows past the operator's cap, and starts there", () => {
  const window = new ConcurrencyWindow(3);
  expect(window.size).toBe(3);
  for (let i = 0; i < 100; i++) window.grow();
  expect(window.size).toBe(3);
  window.shrink(window.epoch);
  expect(window.size).toBe(1);
});
