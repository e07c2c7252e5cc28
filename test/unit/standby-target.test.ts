// StandbyTarget: the burst under way, the largest burst of the last hour fading by half each half-life, within
// [min, max].
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { HOLD_MS, StandbyTarget, WINDOW_MS } from "../../src/pool/standby-target.js";

describe("StandbyTarget", () => {
  it("grows with the leases of the last second, up to its maximum", () => {
    const target = new StandbyTarget(2, 10);
    expect(target.target(0)).toBe(2);
    for (let i = 0; i < 6; i++) target.recordLease(100 + i);
    expect(target.target(200)).toBe(6);
    for (let i = 0; i < 20; i++) target.recordLease(300 + i);
    expect(target.target(400)).toBe(10);
  });

  it("remembers a burst after it: the next one of that size finds its threads started", () => {
    const target = new StandbyTarget(3, 256);
    for (let i = 0; i < 50; i++) target.recordLease(1000 + i);
    expect(target.target(1049 + HOLD_MS)).toBe(50);
  });

  it("then lets it fade by half each half-life, and forgets it past the horizon", () => {
    const target = new StandbyTarget(3, 256);
    for (let i = 0; i < 200; i++) target.recordLease(i);
    expect(target.target(199 + 3 * HOLD_MS)).toBe(100);
    expect(target.target(199 + 5 * HOLD_MS)).toBe(50);
    expect(target.target(200 + 12 * HOLD_MS)).toBe(3);
  });

  it("is always within [min, max], and never below the burst under way nor above the largest seen", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 64 }),
        fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 1, maxLength: 200 }),
        (min, extra, gaps) => {
          const max = min + extra;
          const target = new StandbyTarget(min, max);
          let now = 0;
          let largest = 0;
          const times: number[] = [];
          for (const gap of gaps) {
            now += gap;
            target.recordLease(now);
            times.push(now);
            const inWindow = times.filter((t) => t > now - WINDOW_MS).length;
            largest = Math.max(largest, inWindow);
            const wanted = target.target(now);
            expect(wanted).toBeGreaterThanOrEqual(Math.min(max, Math.max(min, inWindow)));
            expect(wanted).toBeLessThanOrEqual(Math.max(min, Math.min(max, largest)));
          }
        },
      ),
    );
  });
});
