// A compaction of a journal restored from a restore point keeps, of the part of the log the point skipped, only what
// session/load shows (the replayable entries), as a compaction of the whole log would; the compacted log restores to
// the same session, and the stale point is removed.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { isReplayed } from "../../src/protocol/log/snapshot.js";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { FileJournal } from "../../workers/log/journal-file.js";
import { logTurns } from "../support/log-turns.js";
import { logFiles, restoredFromStart, restoredSession, sessionId, writeEntries } from "../support/restore-points.js";
import { tempDir } from "../support/temp-dirs.js";

for (const compactedBefore of [false, true]) {
  it(`${compactedBefore ? "a compacted log" : "a log as appended"} restored from its point, then compacted`, () => {
    const dir = tempDir("ash-restore-point-");
    const path = join(dir, `${sessionId}.jsonl`);
    writeEntries(path, dir, logTurns(1, 100));
    const writer = FileJournal.open(logFiles(path), sessionId);
    if (compactedBefore) expect(writer.compact()).toBe(true);
    writer.append(...logTurns(101, 200));
    expect(writer.writeRestorePoint()).toBe(true);
    writer.append(...logTurns(201, 220));
    writer.close();
    const expected = restoredFromStart(path);

    const journal = FileJournal.open(logFiles(path), sessionId);
    expect(journal.entries()).toEqual(logTurns(201, 220));
    expect(journal.compact()).toBe(true);
    journal.close();
    expect(existsSync(`${path}.restore`)).toBe(false);

    const [, , ...history] = readFileSync(path, "utf8").split("\n").slice(0, -1);
    expect(history.map((line) => JSON.parse(line) as LogEntry)).toEqual(logTurns(1, 220).filter(isReplayed));
    const reopened = FileJournal.open(logFiles(path), sessionId);
    expect(restoredSession(reopened)).toEqual(expected);
    reopened.close();
  });
}
