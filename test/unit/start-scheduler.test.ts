import { setImmediate as nextTurn } from "node:timers/promises";
import { expect, it } from "vitest";
import { StartScheduler } from "../../src/pool/start-scheduler.js";

it("starts nothing while a session/new is being answered, then one session per turn of the event loop", async () => {
  const scheduler = new StartScheduler();
  const started: string[] = [];
  const session = (name: string) => ({ start: () => void started.push(name) });
  const done = scheduler.creating();
  scheduler.startSoon(session("a"));
  scheduler.startSoon(session("b"));
  await nextTurn();
  expect(started).toEqual([]);
  done();
  await nextTurn();
  expect(started).toEqual(["a"]);
  await nextTurn();
  expect(started).toEqual(["a", "b"]);
});
