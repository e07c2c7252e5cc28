import { describe, expect, it } from "vitest";
import { runWireFuzz } from "../support/wire-fuzz.js";

// The fast slice of the wire fuzz (the long one: npm run fuzz -- --runs N). FUZZ_SEED replays a failure.
const seed = Number(process.env.FUZZ_SEED ?? 15);

describe("wire fuzz", () => {
  it(`keeps the host up, answers every request once, writes only JSON-RPC (seed ${seed})`, async () => {
    const report = await runWireFuzz({ seed, runs: 25 });
    expect(report.lines).toBeGreaterThanOrEqual(25);
    expect(report.requests).toBeGreaterThan(0);
  }, 180_000);
});
