// A tenant's authenticated requests hold at most its share of the slots: one more is refused, another tenant's is
// not, and a released slot no longer counts.
import { expect, it } from "vitest";
import { FakeSocket, socketSlots as slots } from "../support/fake-sockets.js";

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
