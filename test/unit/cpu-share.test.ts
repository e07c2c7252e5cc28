import { expect, it } from "vitest";
import { CpuShare, type CpuReading } from "../../src/pool/cpu-share.js";

it("is the share of every core used since the last reading", () => {
  const readings: CpuReading[] = [
    { cpuUs: 0, atMs: 0 },
    { cpuUs: 150_000, atMs: 100 },
    { cpuUs: 160_000, atMs: 200 },
  ];
  const share = new CpuShare(() => readings.shift()!, 2);
  expect(share.sinceLast()).toBeCloseTo(0.75);
  expect(share.sinceLast()).toBeCloseTo(0.05);
});
