// A log restored from its restore point gives the session what a restore from the log's start gives it: the state
// (the fold of the base and the entries after it), turns, title, the count of replayable entries (event ids) and the
// whole conversation session/load shows; for a log as appended and a compacted one, and with an open turn after the
// point (repaired alike).
import { readFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { FileJournal } from "../../workers/log/journal-file.js";
import { logTurns } from "../support/log-turns.js";
import {
  lines,
  logFiles,
  restoredFromStart,
  restoredSession,
  sessionId,
  writeEntries,
} from "../support/restore-points.js";
import { tempDir } from "../support/temp-dirs.js";

const openTurn = [
  { type: "turn_start", turnId: "open", at: "2026-01-02T03:04:05.000Z" },
  { type: "user_message", turnId: "open", text: "cut short" },
  {
    type: "assistant_message",
    turnId: "open",
    blocks: [],
    toolCalls: [{ id: "c1", name: "bash", input: { command: "ls" } }],
  },
  {
    type: "tool_call",
    turnId: "open",
    toolCallId: "tc-open",
    callId: "c1",
    name: "bash",
    title: "ls",
    kind: "execute",
    input: { command: "ls" },
  },
];

for (const compacted of [false, true]) {
  it(`a ${compacted ? "compacted log" : "log as appended"}: the same session from its point as from its start`, () => {
    const dir = tempDir("ash-restore-point-");
    const path = join(dir, `${sessionId}.jsonl`);
    writeEntries(path, dir, logTurns(1, 300));
    const first = FileJournal.open(logFiles(path), sessionId);
    if (compacted) expect(first.compact()).toBe(true);
    first.append(...logTurns(301, 400));
    expect(first.writeRestorePoint()).toBe(true);
    first.close();
    appendFileSync(path, lines([...logTurns(401, 420), ...openTurn]));

    const expected = restoredFromStart(path);
    const said: string[] = [];
    const journal = FileJournal.open(logFiles(path, said), sessionId);
    // Only the entries after the point were read (and the open turn's repairs appended to them).
    expect(journal.entries().length).toBe(logTurns(401, 420).length + openTurn.length + 2);
    expect(said).toEqual([]);
    expect(restoredSession(journal)).toEqual(expected);
    expect(journal.turns).toBe(421);
    journal.close();
    // Both repaired the open turn alike, and the point still fits the repaired log.
    expect(readFileSync(path).equals(readFileSync(`${path}.copy`))).toBe(true);
    const again = FileJournal.open(logFiles(path, said), sessionId);
    expect(restoredSession(again)).toEqual(expected);
    again.close();
    expect(said).toEqual([]);
  });
}
