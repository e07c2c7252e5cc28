// What is left of a provider's rate limit: the report counted off by what was sent after its request, the lowest of
// two reports within one reset, nothing known past the reset.
import { expect, it } from "vitest";
import { RateEstimate } from "../../workers/gateway/rate-estimate.js";

it("counts off what was sent since the report, keeps the lowest within a reset, and forgets it at the reset", () => {
  const estimate = new RateEstimate();
  const noJitter = () => 0;
  expect(estimate.left(0, 1_000)).toBeNull();
  // The 3rd request's answer: 7 left; 5 had been sent by then.
  estimate.learn({ remaining: 7, resetMs: 500 }, 3, 5, 1_000, noJitter);
  expect(estimate.left(5, 1_000)).toEqual({ left: 5, untilMs: 1_500 });
  expect(estimate.left(6, 1_100)).toEqual({ left: 4, untilMs: 1_500 });
  // The 2nd request's answer, arrived later and counted by the provider after the 3rd: one more than the truth.
  estimate.learn({ remaining: 7, resetMs: 400 }, 2, 6, 1_100, noJitter);
  expect(estimate.left(6, 1_100)).toEqual({ left: 3, untilMs: 1_500 });
  expect(estimate.left(6, 1_500)).toBeNull();
  estimate.learn({ remaining: 9, resetMs: null }, 7, 7, 1_600, noJitter);
  expect(estimate.left(7, 1_600)).toEqual({ left: 9, untilMs: 2_600 });
});
