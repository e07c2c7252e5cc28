import { describe, expect, it } from "vitest";
import { leaks, runSoak } from "../support/soak.js";

// The fast slice of the soak (the long one: npm run soak -- --sessions 1000 --prompts 10). Latency is reported by
// the long run only: a p99 ratio on a shared 2-core machine would test the machine.
const seed = Number(process.env.FUZZ_SEED ?? 15);

describe("soak", () => {
  it(`sessions created and closed with mixed prompts: fds, threads, children and RSS at rest come back (seed ${seed})`, async () => {
    const report = await runSoak({
      seed,
      sessions: 40,
      prompts: 5,
      concurrency: 4,
      warmupSessions: 8,
      windowMs: 5_000,
    });
    expect(report.failures).toEqual([]);
    // RSS is read once the host says it is at rest (past its idle collection of the main heap); without that
    // collection this slice ended 13-28 MB (+18 %) above its warm-up, with it 2-3 %.
    console.log(
      `soak slice: RSS ${report.baseline.rssMb.toFixed(1)} MB after warm-up, ${report.end.rssMb.toFixed(1)} MB at the end`,
    );
    expect(leaks(report)).toEqual([]);
    expect(report.samples.length).toBeGreaterThan(0);
  }, 240_000);
});
