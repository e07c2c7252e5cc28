// A log read back for a restore (restoreLog, workers/log/log-repair.ts): a compacted log from its snapshot, and lines
// kept and cut by their bytes.
import { describe, expect, it } from "vitest";
import { isReplayed } from "../../src/protocol/log/snapshot.js";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { type LogEntry, LogError } from "../../src/protocol/log/session-log.js";
import { compactedLog } from "../../workers/log/log-compaction.js";
import { parseReplayed, restoreLog } from "../../workers/log/log-repair.js";
import { replayEvents } from "../../src/protocol/log/replay-events.js";
import { header } from "../support/durable.js";
import { logTurns } from "../support/log-turns.js";

// A compacted log restores to the same session without reading its history: the snapshot's base and the entries
// appended after it; session/load's entries (the replayable history, then those) show what the whole log showed.
describe("a compacted log", () => {
  const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
  const headerLine = JSON.stringify({ ...header(id, "/work"), mcpServers: [] });
  const lines = (entries: readonly LogEntry[]) =>
    Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""));

  function compact(entries: readonly LogEntry[], previous?: Buffer): Buffer {
    const restored = previous ? restoreLog(previous, id) : null;
    const base = foldLog(restored?.snapshot?.base ?? emptyState(header(id, "/work")), entries);
    const replayed = restored?.snapshot
      ? previous!.subarray(restored.replay.start, restored.replay.start + restored.snapshot.replayBytes)
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
    const history = twice.subarray(restored.replay.start, restored.replay.start + restored.snapshot!.replayBytes);
    expect(replayEvents([...parseReplayed(history, 3), ...restored.entries])).toEqual(replayEvents(all));
  });

  it("a replayable history shorter than its snapshot says is a LogError, not a guess", () => {
    const log = compact(logTurns(1, 5));
    expect(() => restoreLog(log.subarray(0, log.length - 10), id)).toThrow(LogError);
    expect(() => restoreLog(log.subarray(0, log.length - 10), id)).toThrow(/not the size its snapshot says/);
  });
});

// A log's lines are read from one decoding of its bytes, while what is kept and what is cut are counted in bytes: text
// past ASCII in the entries, and a torn last line that ends inside a character, still cut at the last whole line.
describe("byte offsets", () => {
  const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
  const turnId = "7b2c3d4e-5f6a-4b2c-9d3e-4f5a6b7c8d9e";

  it("keeps every whole line and cuts a torn tail, counting bytes, when entries hold multi-byte text", () => {
    const entries: LogEntry[] = [
      { type: "turn_start", turnId, at: "2026-12-06T00:00:00.000Z" },
      { type: "user_message", turnId, text: "naïve café: ünïcödé, 日本語, and 🙂" },
      { type: "assistant_message", turnId, blocks: ["déjà vu — ✓"], toolCalls: [] },
      { type: "turn_end", turnId, stopReason: "end_turn" },
    ];
    const whole = Buffer.from(
      [JSON.stringify(header(id, "/work")), ...entries.map((entry) => JSON.stringify(entry))].join("\n") + "\n",
    );
    // The torn write stops inside the three bytes of "日".
    const torn = Buffer.from(JSON.stringify({ type: "user_message", turnId, text: "日本" })).subarray(0, 80);
    expect(torn.toString("utf8")).toContain("\ufffd");

    const restored = restoreLog(Buffer.concat([whole, torn]), id);

    expect(restored.entries).toEqual(entries);
    expect(restored.validLength).toBe(whole.length);
    expect(restored.droppedBytes).toBe(torn.length);
    expect(restored.repairs).toEqual([]);
  });
});
