import { describe, expect, it } from "vitest";
import { lostTurns, runCrashLoop } from "../support/crash-loop.js";

// The fast slice of the kill -9 loop (the long one: npm run crash-loop -- --kills 50). FUZZ_SEED replays a run.
const seed = Number(process.env.FUZZ_SEED ?? 15);

describe("kill -9 loop", () => {
  it("the loss check sees a missing, a changed and a reordered turn", () => {
    const a = ["user: a", "agent: A"];
    const b = ["user: b", "agent: B"];
    expect(lostTurns([a, b], [a, ["user: x"], b])).toEqual([]);
    expect(lostTurns([a, b], [a])).toEqual([b]);
    expect(lostTurns([a, b], [a, ["user: b", "agent: other"]])).toEqual([b]);
    expect(lostTurns([a, b], [b, a])).toHaveLength(1);
  });

  it(`3 kills: every turn the client saw end replays in order, logs readable, no orphan (seed ${seed})`, async () => {
    const report = await runCrashLoop({ seed, kills: 3, sessions: 2, killAfterMs: [300, 1500] });
    expect(report.failures).toEqual([]);
    expect(report).toMatchObject({ kills: 3, turnsLost: 0, unreadableLogs: 0, orphans: 0 });
    expect(report.turnsChecked).toBeGreaterThan(0);
    expect(report.compactedLogs).toBeGreaterThan(0);
  }, 180_000);
});
