import { expect, it } from "vitest";
import { StandbyTarget } from "../../src/pool/standby-target.js";

it("grows with the leases of the last second, up to its maximum", () => {
  const target = new StandbyTarget(2, 10);
  expect(target.target(0)).toBe(2);
  for (let i = 0; i < 6; i++) target.recordLease(100 + i);
  expect(target.target(200)).toBe(6);
  for (let i = 0; i < 20; i++) target.recordLease(300 + i);
  expect(target.target(400)).toBe(10);
});
