// A page reads only the sessions that changed since the last one: what this host touched, and what a rescan of the
// directory's names finds new or gone. Never every session.
import { expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { SessionIndex } from "../../src/store/dir/session-index.js";
import { at, FakeSource, id } from "../support/index-source.js";

it("reads every session once to build, then only the touched ones and the ones a rescan finds new or gone", async () => {
  const source = new FakeSource();
  for (let n = 0; n < 1000; n++) source.put(id(n), at(n % 50));
  const index = new SessionIndex(source, createLogger("silent"));
  const first = async () =>
    (await index.page({ after: null, pageSize: 3, matches: () => true })).sessions.map((s) => s.info.sessionId);

  await first();
  expect(source.reads).toBe(1000);
  await first();
  expect(source.reads).toBe(1000);

  source.put(id(7), at(59));
  index.touched(id(7));
  expect((await first())[0]).toBe(id(7));
  expect(source.reads).toBe(1001);

  // Another process adds one session and deletes another: the directory changed, its names are read again.
  source.put(id(2000), at(59.5));
  source.remove(id(7));
  expect(await first()).toEqual([id(2000), ...(await first()).slice(1)]);
  expect(await first()).not.toContain(id(7));
  expect(source.reads).toBe(1003);
  expect(source.scans).toBe(2);
});
