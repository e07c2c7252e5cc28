// The AIMD window of a provider endpoint: halves on a refusal (once for the requests sent under one window), grows by
// one per window's worth of successes, slower once at the size last refused, never past the operator's cap nor
// below one.
import { expect, it } from "vitest";
import { ConcurrencyWindow, INITIAL_WINDOW } from "../../workers/gateway/concurrency-window.js";

function growUntil(window: ConcurrencyWindow, size: number): number {
  let successes = 0;
  while (window.size < size) {
    window.grow();
    successes++;
  }
  return successes;
}

it("halves on a refusal, once for the requests sent before it, and grows back one per window of successes", () => {
  const window = new ConcurrencyWindow(null);
  expect(window.size).toBe(INITIAL_WINDOW);
  expect(growUntil(window, 9)).toBe(4 + 5 + 6 + 7 + 8);
  const sentIn = window.epoch;
  window.shrink(sentIn);
  expect(window.size).toBe(4);
  // Refusals of requests sent under the old window say nothing new.
  window.shrink(sentIn);
  expect(window.size).toBe(4);
  expect(growUntil(window, 5)).toBe(4);
  for (let i = 0; i < 10; i++) window.shrink(window.epoch);
  expect(window.size).toBe(1);
});

it("once refused at a size, grows to just below it as before and past it eight times slower", () => {
  const window = new ConcurrencyWindow(null);
  growUntil(window, 9);
  window.shrink(window.epoch);
  expect(window.size).toBe(4);
  expect(growUntil(window, 8)).toBe(4 + 5 + 6 + 7);
  expect(growUntil(window, 9)).toBe(8 * 8);
});

it("never grows past the operator's cap, and starts there", () => {
  const window = new ConcurrencyWindow(3);
  expect(window.size).toBe(3);
  for (let i = 0; i < 100; i++) window.grow();
  expect(window.size).toBe(3);
  window.shrink(window.epoch);
  expect(window.size).toBe(1);
});
