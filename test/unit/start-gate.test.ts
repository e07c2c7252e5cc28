// The start gate: while throttled, at most `limit` permits are out at once and the others are granted in order as
// permits come back; lifting the throttle lets every waiting start go; unthrottled, nothing waits.
import { expect, it } from "vitest";
import { StartGate } from "../../src/pool/start-gate.js";

const turn = () => new Promise((resolve) => setImmediate(resolve));

it("throttled: at most limit at once, the rest in order as released (a double release counts once); lifted: all go", async () => {
  const gate = new StartGate(2);
  gate.throttle(true);
  const granted: number[] = [];
  const releases = new Map<number, () => void>();
  const asks = [0, 1, 2, 3, 4].map((n) => gate.acquire().then((release) => (granted.push(n), releases.set(n, release))));
  await turn();
  expect(granted).toEqual([0, 1]);
  expect(gate.waiting).toBe(3);
  releases.get(1)!();
  releases.get(1)!();
  await asks[2];
  await turn();
  expect(granted).toEqual([0, 1, 2]);
  gate.throttle(false);
  await Promise.all(asks);
  expect(granted).toEqual([0, 1, 2, 3, 4]);
  const more = await Promise.all([gate.acquire(), gate.acquire(), gate.acquire()]);
  expect(more).toHaveLength(3);
});
