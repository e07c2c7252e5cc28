// What tokens cost at a model's --model-price: prompt tokens not from the cache at the input price, those from the
// cache at the cached price, output at the output price, all per million tokens.
import { expect, it } from "vitest";
import { costUsd } from "../../src/protocol/budget.js";

it("prices uncached input, cached input and output apart", () => {
  const price = { input: 2, cachedInput: 0.5, output: 8 };
  expect(costUsd(price, { prompt: 1_000_000, completion: 0, cached: 0 })).toBe(2);
  expect(costUsd(price, { prompt: 1_000_000, completion: 500_000, cached: 400_000 })).toBeCloseTo(1.2 + 0.2 + 4, 10);
  // A provider that reports more cached tokens than prompt tokens is held to its prompt tokens.
  expect(costUsd(price, { prompt: 100, completion: 0, cached: 1_000 })).toBeCloseTo(0.00005, 10);
});
