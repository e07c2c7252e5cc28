// The state dir's session index (src/store/dir/session-index.ts).
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import { SessionIndex } from "../../src/store/dir/session-index.js";
import { at, FakeSource, id } from "../support/index-source.js";

// The session index pages through stored sessions newest first (ties by id), each once, with a filter, and a
// cursor stays valid while sessions are added and updated in between.
describe("pages", () => {
  it("pages newest first, ties by id, filtered, each session once across pages", async () => {
    const source = new FakeSource();
    for (let n = 0; n < 25; n++) source.put(id(n), at(n % 10), n % 2 ? "/odd" : "/even");
    const index = new SessionIndex(source, createLogger("silent"));
    const seen: string[] = [];
    let after: [string, string] | null = null;
    for (;;) {
      const { sessions, more } = await index.page({ after, pageSize: 4, matches: (s) => s.cwdKey === "/odd" });
      seen.push(...sessions.map((s) => s.info.sessionId));
      const last = sessions.at(-1);
      if (!more || !last) break;
      after = [last.info.updatedAt, last.info.sessionId];
      // Between pages: a new session and an update of one already shown move ahead of the cursor; neither repeats
      // nor hides the others.
      if (seen.length === 4) {
        source.put(id(99), at(59), "/odd");
        index.touched(id(99));
        source.put(id(9), at(58), "/odd");
        index.touched(id(9));
      }
    }
    const odd = [...Array(25).keys()].filter((n) => n % 2).map((n) => ({ n, t: at(n % 10) }));
    const expected = odd
      .sort((a, b) => (a.t === b.t ? (id(a.n) < id(b.n) ? -1 : 1) : a.t < b.t ? 1 : -1))
      .map((o) => id(o.n));
    expect(seen).toEqual(expected);
  });
});

// A page reads only the sessions that changed since the last one: what this host touched, and what a rescan of the
// directory's names finds new or gone. Never every session.
describe("what a page reads", () => {
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
});
