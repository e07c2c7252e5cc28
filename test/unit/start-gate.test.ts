// The start gate: at most `limit` permits out at once; the others are granted in order as permits come back.
import { expect, it } from "vitest";
import { StartGate } from "../../src/pool/start-gate.js";

it("grants at most limit permits at once, the rest in order as they are released (a double release counts once)", async () => {
  const gate = new StartGate(2);
  const granted: number[] = [];
  const releases = new Map<number, () => void>();
  const asks = [0, 1, 2, 3].map((n) => gate.acquire().then((release) => (granted.push(n), releases.set(n, release))));
  await Promise.all(asks.slice(0, 2));
  await new Promise((resolve) => setImmediate(resolve));
  expect(granted).toEqual([0, 1]);
  expect(gate.waiting).toBe(2);
  releases.get(1)!();
  releases.get(1)!();
  await asks[2];
  await new Promise((resolve) => setImmediate(resolve));
  expect(granted).toEqual([0, 1, 2]);
  releases.get(0)!();
  await asks[3];
  expect(granted).toEqual([0, 1, 2, 3]);
});
