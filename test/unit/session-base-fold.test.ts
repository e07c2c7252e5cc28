// A compaction may fold a log at any turn boundary: the base it stores, advanced by the entries after it, is the
// session that folding the whole log gives.
import { expect, it } from "vitest";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { logTurns } from "../support/log-turns.js";

const header = { mode: "ask" as const, model: { provider: "scripted" as const, model: "scripted", retries: 0 } };

it("folding in parts at turn boundaries gives the base folding it whole gives", () => {
  const whole = foldLog(emptyState(header), logTurns(1, 30));
  expect(whole).toMatchObject({ turns: 30, title: "run step 1", mode: "auto", alwaysAllowed: ["bash", "write_file"] });
  expect(whole.usage.prompt).toBeGreaterThan(0);
  for (const cut of [1, 7, 29]) {
    const first = foldLog(emptyState(header), logTurns(1, cut));
    expect(foldLog(first, logTurns(cut + 1, 30))).toEqual(whole);
  }
});
