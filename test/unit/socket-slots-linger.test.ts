// Evictions past --max-connections a second from one address: the evicted socket's slot is free at once, but the
// socket is stopped and closed later by the sweep (so a flood that renews each socket as it closes waits), and no more
// sockets linger than the bound.
import { expect, it } from "vitest";
import { PausableSocket, socketSlots as slots } from "../support/fake-sockets.js";
import { waitFor } from "../support/tools.js";

it("an address's evictions past the budget linger, stopped, then close; its newcomers still get the slot", async () => {
  const table = slots(2);
  const flood = (): PausableSocket => new PausableSocket("10.0.0.9");
  const sockets = [flood(), flood()];
  for (const socket of sockets) expect(table.admit(socket)).toBe(true);
  // Two evictions this second are within the budget (--max-connections): closed at once.
  for (let i = 0; i < 2; i++) {
    const newcomer = flood();
    expect(table.admit(newcomer)).toBe(true);
    sockets.push(newcomer);
  }
  expect(sockets.slice(0, 2).map((s) => [s.destroyed, s.paused])).toEqual([
    [true, false],
    [true, false],
  ]);
  // The third lingers: stopped, not closed, and its slot is the newcomer's.
  const newcomer = flood();
  expect(table.admit(newcomer)).toBe(true);
  expect([sockets[2]!.destroyed, sockets[2]!.paused]).toEqual([false, true]);
  expect(table.open).toBe(2);
  expect(table.lingering).toBe(1);
  await waitFor("the lingering socket to close", () => sockets[2]!.destroyed || null);
  await waitFor("it to be forgotten", () => table.lingering === 0 || null);
  expect(newcomer.destroyed).toBe(false);
  table.close();
});

it("no more than four times --max-connections sockets linger at once: past that the oldest closes", () => {
  const table = slots(2);
  const admitted: PausableSocket[] = [];
  for (let i = 0; i < 2 + 2 + 8 + 3; i++) {
    const socket = new PausableSocket("10.0.0.9");
    expect(table.admit(socket)).toBe(true);
    admitted.push(socket);
  }
  expect(table.lingering).toBe(8);
  // The first two were closed within the budget, the next three past the bound, oldest first.
  expect(admitted.slice(0, 5).every((s) => s.destroyed)).toBe(true);
  expect(admitted.slice(5, 13).some((s) => s.destroyed)).toBe(false);
  table.close();
  expect(admitted.slice(0, 13).every((s) => s.destroyed)).toBe(true);
});
