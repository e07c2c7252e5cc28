// At the cap a newcomer takes the place of a socket that carries no authenticated request: first one that never
// carried one, the oldest of the address holding the most such sockets; then the longest idle since its last one.
// Only when every slot carries an authenticated request is the newcomer closed.
import { expect, it } from "vitest";
import { FakeSocket, socketSlots as slots } from "../support/fake-sockets.js";

it("evicts the oldest silent socket of the address that holds the most, then the longest idle, never a held one", () => {
  const table = slots(4);
  const [flood1, flood2, lone, client] = [
    new FakeSocket("10.0.0.9"),
    new FakeSocket("10.0.0.9"),
    new FakeSocket("10.0.0.1"),
    new FakeSocket("10.0.0.2"),
  ];
  for (const socket of [lone, flood1, flood2, client]) expect(table.admit(socket)).toBe(true);
  table.hold(client, null)!();
  // The flood's address holds two silent sockets, the lone address one (older): the flood's oldest goes.
  expect(table.admit(new FakeSocket("10.0.0.3"))).toBe(true);
  expect([flood1.destroyed, flood2.destroyed, lone.destroyed, client.destroyed]).toEqual([true, false, false, false]);
  expect(table.open).toBe(4);
});

it("evicts an idle authenticated socket once no silent one is left, and refuses the newcomer when every slot is held", () => {
  const table = slots(2);
  const [idle, held] = [new FakeSocket("10.0.0.1"), new FakeSocket("10.0.0.1")];
  table.admit(idle);
  table.admit(held);
  table.hold(idle, "a")!();
  table.hold(held, "a");
  const newcomer = new FakeSocket("10.0.0.2");
  expect(table.admit(newcomer)).toBe(true);
  expect([idle.destroyed, held.destroyed]).toEqual([true, false]);
  table.hold(newcomer, "b");
  const refused = new FakeSocket("10.0.0.3");
  expect(table.admit(refused)).toBe(false);
  expect([refused.destroyed, held.destroyed, newcomer.destroyed]).toEqual([true, false, false]);
});

it("makes room within the address at its cap, and refuses when its sockets are all held", () => {
  const table = slots(10, 2);
  const [first, second] = [new FakeSocket("10.0.0.1"), new FakeSocket("10.0.0.1")];
  const elsewhere = new FakeSocket("10.0.0.2");
  for (const socket of [elsewhere, first, second]) table.admit(socket);
  expect(table.admit(new FakeSocket("10.0.0.1"))).toBe(true);
  expect([elsewhere.destroyed, first.destroyed, second.destroyed]).toEqual([false, true, false]);
  const full = slots(10, 1);
  const only = new FakeSocket("10.0.0.1");
  full.admit(only);
  full.hold(only, null);
  expect(full.admit(new FakeSocket("10.0.0.1"))).toBe(false);
});

it("frees a slot when its socket closes", async () => {
  const table = slots(1);
  const first = new FakeSocket("10.0.0.1");
  table.admit(first);
  table.hold(first, null);
  first.destroy();
  await new Promise((resolve) => setImmediate(resolve));
  expect(table.open).toBe(0);
  expect(table.admit(new FakeSocket("10.0.0.1"))).toBe(true);
});
