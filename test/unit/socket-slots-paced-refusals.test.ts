// A request refused before it authenticated is answered at once while its address has budget left (--max-connections
// a second, evictions included); past it, the socket gives up its slot, stops, and is answered later by the sweep.
import { expect, it } from "vitest";
import { PausableSocket, socketSlots as slots } from "../support/fake-sockets.js";
import { waitFor } from "../support/tools.js";

it("answers an address's refusals at once within its budget, later past it, and frees the slot meanwhile", async () => {
  const table = slots(2);
  const answered: number[] = [];
  const refused = [0, 1, 2].map(() => new PausableSocket("10.0.0.9"));
  for (const socket of refused) table.admit(socket);
  // The third admission evicted the first (within the budget: one of two spent).
  expect(refused[0]!.destroyed).toBe(true);
  table.pace(refused[1]!, () => answered.push(1));
  expect(answered).toEqual([1]);
  // The budget is spent: the next refusal waits, stopped, and its slot is free for a newcomer with no eviction.
  table.pace(refused[2]!, () => answered.push(2));
  expect(answered).toEqual([1]);
  expect(refused[2]!.paused).toBe(true);
  expect(table.lingering).toBe(1);
  expect(table.open).toBe(1);
  const newcomer = new PausableSocket("10.0.0.1");
  expect(table.admit(newcomer)).toBe(true);
  expect(refused[1]!.destroyed).toBe(false);
  await waitFor("the refusal past the budget to be answered", () => (answered.length === 2 ? true : null));
  expect(table.lingering).toBe(0);
  table.close();
});
