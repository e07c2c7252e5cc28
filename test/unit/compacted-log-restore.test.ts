// A compacted log restores to the same session without reading its history: the snapshot's base and the entries
// appended after it; session/load's entries (the replayable history, then those) show what the whole log showed.
import { expect, it } from "vitest";
import { isReplayed } from "../../src/protocol/log/snapshot.js";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { LogError, type LogEntry } from "../../src/protocol/log/session-log.js";
import { compactedLog } from "../../workers/log/log-compaction.js";
import { parseReplayed, restoreLog } from "../../workers/log/log-repair.js";
import { replayEvents } from "../../workers/log/replay.js";
import { header } from "../support/durable.js";
import { logTurns } from "../support/log-turns.js";

const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
const headerLine = JSON.stringify({ ...header(id, "/work"), mcpServers: [] });
const lines = (entries: readonly LogEntry[]) =>
  Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));

function compact(entries: readonly LogEntry[], previous?: Buffer): Buffer {
  const restored = previous ? restoreLog(previous, id) : null;
  const base = foldLog(restored?.snapshot?.base ?? emptyState(header(id, "/work")), entries);
  const replayed = restored?.snapshot
    ? previous!.subarray(restored.replayStart, restored.replayStart + restored.snapshot.replayBytes)
    : Buffer.alloc(0);
  const log = compactedLog({
    headerLine,
    base,
    replayed,
    replayedLines: restored?.snapshot?.replayLines ?? 0,
    added: entries.filter(isReplayed),
  });
  return Buffer.concat([log.head, ...log.history]);
}

it("twice compacted, then appended to and torn: the base, the entries after it and the replay are the whole log's", () => {
  const all = logTurns(1, 40);
  const once = compact(logTurns(1, 15));
  const twice = Buffer.concat([
    compact(logTurns(16, 30), once),
    lines(logTurns(31, 40)),
    Buffer.from('{"type":"turn_st'),
  ]);
  const restored = restoreLog(twice, id);

  expect(restored.header.formatVersion).toBe(2);
  // Every header field is kept, those this host does not know too.
  expect(JSON.parse(twice.toString("utf8", 0, twice.indexOf(0x0a)))).toMatchObject({ mcpServers: [], sessionId: id });
  expect(restored.entries).toEqual(logTurns(31, 40));
  expect(restored.droppedBytes).toBe('{"type":"turn_st'.length);
  expect(foldLog(restored.snapshot!.base, restored.entries)).toEqual(foldLog(emptyState(header(id, "/work")), all));
  const history = twice.subarray(restored.replayStart, restored.replayStart + restored.snapshot!.replayBytes);
  expect(replayEvents([...parseReplayed(history, 3), ...restored.entries])).toEqual(replayEvents(all));
});

it("a replayable history shorter than its snapshot says is a LogError, not a guess", () => {
  const log = compact(logTurns(1, 5));
  expect(() => restoreLog(log.subarray(0, log.length - 10), id)).toThrow(LogError);
  expect(() => restoreLog(log.subarray(0, log.length - 10), id)).toThrow(/not the size its snapshot says/);
});
