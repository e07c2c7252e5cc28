// The benchmark's statistics helpers: percentiles within a run, medians and spread across runs.
import { describe, expect, it } from "vitest";
import { figure, figures, median, percentile, ratio, summarize } from "../../bench/support/stats.js";

describe("bench statistics", () => {
  it("percentile is nearest-rank over ascending samples", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 0.5)).toBe(50);
    expect(percentile(hundred, 0.99)).toBe(99);
    expect(percentile(hundred, 1)).toBe(100);
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile([7], 0.99)).toBe(7);
    expect(percentile([1, 2, 3], 0.5)).toBe(2);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it("summarize sorts its samples and reports mean, percentiles and max", () => {
    const s = summarize([5, 1, 4, 2, 3]);
    expect(s).toEqual({ count: 5, mean: 3, p50: 3, p95: 5, p99: 5, max: 5 });
    expect(summarize([]).count).toBe(0);
  });

  it("median of odd and even counts; figure keeps every run and its spread", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(figure([12, 10, 11])).toEqual({ median: 11, min: 10, max: 12, runs: [12, 10, 11] });
    // A run that produced no number does not move the median, but stays on record.
    const withGap = figure([1, Number.NaN, 3]);
    expect(withGap).toMatchObject({ median: 2, min: 1, max: 3 });
    expect(withGap.runs).toHaveLength(3);
  });

  it("figures picks keys across runs; ratio divides medians", () => {
    const f = figures(
      [
        { a: 1, b: 10 },
        { a: 3, b: 30 },
        { a: 2, b: 20 },
      ],
      ["a", "b"] as const,
    );
    expect(f.a.median).toBe(2);
    expect(f.b).toMatchObject({ median: 20, min: 10, max: 30 });
    expect(ratio(f.b, f.a)).toBe(10);
    expect(ratio(f.a, figure([0]))).toBeNaN();
  });
});
