// The start gate: at most `limit` permits are out at once, and the others are granted in order as permits come back
// (a double release counts once).
import { expect, it } from "vitest";
import { StartGate } from "../../src/pool/start-gate.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

it("at most limit at once, the rest in order as released; a double release counts once", async () => {
  const gate = new StartGate(2);
  const granted: number[] = [];
  const releases = new Map<number, () => void>();
  const asks = [0, 1, 2, 3, 4].map((n) =>
    gate.acquire().then((release) => (granted.push(n), releases.set(n, release))),
  );
  await turn();
  expect(granted).toEqual([0, 1]);
  expect(gate.waiting).toBe(3);
  releases.get(1)!();
  releases.get(1)!();
  await asks[2];
  await turn();
  expect(granted).toEqual([0, 1, 2]);
  expect(gate.waiting).toBe(2);
  releases.get(0)!();
  releases.get(2)!();
  await Promise.all(asks);
  expect(granted).toEqual([0, 1, 2, 3, 4]);
});
