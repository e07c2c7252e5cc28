// Statistics of the benchmark: latency percentiles within a run, medians with their spread across runs.

/** Latency percentiles of one run, in ms. */
export interface LatencySummary {
  count: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

/** One reported figure: the median of its repeated runs, and their spread (min and max). */
export interface Figure {
  median: number;
  min: number;
  max: number;
  /** Every run's value, in run order. */
  runs: number[];
}

/** Nearest-rank percentile (q in [0, 1]) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  if (q <= 0) return sorted[0]!;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function summarize(samples: readonly number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    max: sorted.length === 0 ? Number.NaN : sorted.at(-1)!,
  };
}

export function figure(runs: readonly number[]): Figure {
  const finite = runs.filter(Number.isFinite);
  return {
    median: median(finite),
    min: finite.length === 0 ? Number.NaN : Math.min(...finite),
    max: finite.length === 0 ? Number.NaN : Math.max(...finite),
    runs: [...runs],
  };
}

/** One Figure per key, from a list of per-run records (e.g. each run's LatencySummary). */
export function figures<K extends string>(
  runs: ReadonlyArray<Record<K, number>>,
  keys: readonly K[],
): Record<K, Figure> {
  return Object.fromEntries(keys.map((key) => [key, figure(runs.map((run) => run[key]))])) as Record<K, Figure>;
}

/** a / b of two medians; NaN when either is missing or b is 0. */
export function ratio(a: Figure, b: Figure): number {
  return b.median === 0 || !Number.isFinite(a.median) || !Number.isFinite(b.median) ? Number.NaN : a.median / b.median;
}
