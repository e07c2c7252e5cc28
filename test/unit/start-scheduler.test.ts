import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import { StartScheduler } from "../../src/pool/start-scheduler.js";

it("starts nothing while a session/new is being answered, then one session at a time after that turn's answers are out", async () => {
  const scheduler = new StartScheduler();
  const order: string[] = [];
  const session = (name: string) => ({ start: () => void order.push(name) });
  const done = scheduler.creating();
  scheduler.startSoon(session("a"));
  scheduler.startSoon(session("b"));
  await nextTurn();
  expect(order).toEqual([]);
  done();
  // stdout writes a loop turn's frames at that turn's end (stdio-stream.ts): the answer, queued after the start was.
  setImmediate(() => order.push("answer written"));
  while (order.length < 3) await nextTurn();
  expect(order).toEqual(["answer written", "a", "b"]);
});
