// The table of a remote host's sockets (src/remote/socket-slots.ts): who is evicted at the cap, how evictions and
// refusals past an address's budget linger, and a tenant's share of the slots.
import { describe, expect, it } from "vitest";
import { FakeSocket, PausableSocket, socketSlots as slots } from "../support/fake-sockets.js";
import { waitFor } from "../support/tools.js";

// At the cap a newcomer takes the place of a socket that carries no authenticated request: first one that never
// carried one, the oldest of the address holding the most such sockets; then the longest idle since its last one.
// Only when every slot carries an authenticated request is the newcomer closed.
describe("eviction at the cap", () => {
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
});

// Evictions past --max-connections a second from one address: the evicted socket's slot is free at once, but the
// socket is stopped and closed later by the sweep (so a flood that renews each socket as it closes waits), and no more
// sockets linger than the bound.
describe("evictions past an address's budget linger", () => {
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
});

// A request refused before it authenticated is answered at once while its address has budget left (--max-connections
// a second, evictions included); past it, the socket gives up its slot, stops, and is answered later by the sweep.
describe("refusals paced by an address's budget", () => {
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
});

// A tenant's authenticated requests hold at most its share of the slots: one more is refused, another tenant's is
// not, and a released slot no longer counts.
describe("a tenant's share of the slots", () => {
  it("holds at most a tenant's share of sockets for its requests; a released one counts no more", () => {
    const table = slots(10, 0, 2);
    const sockets = [1, 2, 3].map(() => new FakeSocket("10.0.0.1"));
    for (const socket of sockets) table.admit(socket);
    const release = table.hold(sockets[0]!, "a")!;
    expect(table.hold(sockets[1]!, "a")).not.toBeNull();
    expect(table.hold(sockets[2]!, "a")).toBeNull();
    expect(table.hold(sockets[2]!, "b")).not.toBeNull();
    release();
    const again = new FakeSocket("10.0.0.1");
    table.admit(again);
    expect(table.hold(again, "a")).not.toBeNull();
  });
});
