// A compacted log's snapshot line reads back as written; a damaged one is a LogError that says what is wrong.
import { expect, it } from "vitest";
import { LogError } from "../../src/protocol/log/session-log.js";
import { parseSnapshotLine, snapshotLine } from "../../src/protocol/log/snapshot.js";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { logTurns } from "../support/log-turns.js";

const base = foldLog(
  emptyState({ mode: "ask", model: { provider: "scripted", model: "scripted", retries: 0 } }),
  logTurns(1, 12),
);

it("reads back what was written, and refuses damage with a LogError naming it", () => {
  const line = snapshotLine({ base, replayLines: 40, replayBytes: 4000 });
  expect(parseSnapshotLine(line)).toEqual({ base, replayLines: 40, replayBytes: 4000 });

  const damaged = (change: (json: Record<string, unknown>) => void): string => {
    const json = JSON.parse(line) as Record<string, unknown>;
    change(json);
    return JSON.stringify(json);
  };
  expect(() => parseSnapshotLine(line.slice(0, 50))).toThrow(LogError);
  expect(() => parseSnapshotLine(damaged((json) => (json.replayBytes = -1)))).toThrow(/replayLines and replayBytes/);
  expect(() => parseSnapshotLine(damaged((json) => (json.history = [{ role: "tool", result: 1 }])))).toThrow(
    /history\[0\]/,
  );
  expect(() => parseSnapshotLine(damaged((json) => (json.mode = "sideways")))).toThrow(/mode/);
  expect(() => parseSnapshotLine(damaged((json) => delete json.usage))).toThrow(/usage/);
  expect(() => parseSnapshotLine(damaged((json) => (json.type = "turn_end")))).toThrow(/snapshot/);
});
