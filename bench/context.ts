// What every scenario gets: the run's mode (quick or full), a scratch directory for session cwds, and a logger.
export interface BenchContext {
  quick: boolean;
  /** An existing directory the sessions use as cwd. */
  cwd: string;
  /** Progress lines on stderr (the report goes to stdout). */
  log(message: string): void;
}

/** What a scenario reports when it could not run; `reason` is shown in the table. */
export interface Skipped {
  skipped: string;
}

export function isSkipped(value: unknown): value is Skipped {
  return typeof value === "object" && value !== null && "skipped" in value;
}

/** Runs `count` repetitions one after another, logging each. */
export async function repeat<T>(
  ctx: BenchContext,
  label: string,
  count: number,
  run: (rep: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = [];
  for (let rep = 0; rep < count; rep++) {
    const started = performance.now();
    results.push(await run(rep));
    ctx.log(`${label}: run ${rep + 1}/${count} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return results;
}
