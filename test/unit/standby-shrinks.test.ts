import { expect, it } from "vitest";
import { StandbyTarget, WINDOW_MS } from "../../src/pool/standby-target.js";

it("falls back to its minimum once no lease was taken for a window", () => {
  const target = new StandbyTarget(3, 16);
  for (let i = 0; i < 12; i++) target.recordLease(1000 + i);
  expect(target.target(1100)).toBe(12);
  expect(target.target(1011 + WINDOW_MS)).toBe(3);
});
