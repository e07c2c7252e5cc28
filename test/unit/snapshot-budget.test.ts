// A compaction keeps a session tree's budget: the snapshot holds the last budget entry's (or the header's), and a
// snapshot written before budgets were kept reads as none.
import { expect, it } from "vitest";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { parseSnapshotLine, snapshotLine } from "../../src/protocol/log/snapshot.js";

const model = { provider: "scripted" as const, model: "scripted", retries: 0 };

it("a snapshot keeps the budget the log set last; an older one without it has none", () => {
  const base = foldLog(emptyState({ mode: "ask", model, budget: { tokens: 10 } }), [
    { type: "budget", budget: { tokens: 300, costUsd: 2 } },
  ]);
  const line = snapshotLine({ base, replayLines: 0, replayBytes: 0 });
  expect(parseSnapshotLine(line).base.budget).toEqual({ tokens: 300, costUsd: 2 });
  const { budget: _dropped, ...older } = JSON.parse(line) as Record<string, unknown>;
  expect(parseSnapshotLine(JSON.stringify(older)).base.budget).toBeNull();
});
