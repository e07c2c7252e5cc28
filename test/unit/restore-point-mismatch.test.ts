// A restore point that does not fit its log (the log cut back, replaced by another of the same session, or compacted
// since) is ignored, logged and removed: the session is restored from the log's start, as if there were none.
import { copyFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
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

/** A log of turns 1…last with a point at its end; returns its path and its size then. */
function logWithPoint(last: number): { path: string; size: number } {
  const dir = tempDir("ash-restore-point-");
  const path = join(dir, `${sessionId}.jsonl`);
  writeEntries(path, dir, logTurns(1, last));
  const journal = FileJournal.open(logFiles(path), sessionId);
  expect(journal.writeRestorePoint()).toBe(true);
  journal.close();
  return { path, size: readFileSync(path).length };
}

function expectIgnored(path: string, reason: RegExp): void {
  const expected = restoredFromStart(path);
  const said: string[] = [];
  const journal = FileJournal.open(logFiles(path, said), sessionId);
  expect(restoredSession(journal)).toEqual(expected);
  journal.close();
  expect(said).toEqual([expect.stringMatching(new RegExp(`^session restore point ignored: .*${reason.source}`))]);
  expect(existsSync(`${path}.restore`)).toBe(false);
}

/** Turns shaped like logTurns' under other turn ids: the same sizes, other bytes. */
const otherTurns = (first: number, last: number): LogEntry[] =>
  logTurns(first, last).map((entry) =>
    "turnId" in entry ? ({ ...entry, turnId: entry.turnId.replace("00000000-", "11111111-") } as LogEntry) : entry,
  );

it("a log cut back before the point", () => {
  const { path } = logWithPoint(200);
  truncateSync(path, readFileSync(path).indexOf(JSON.stringify(logTurns(150, 150)[0])));
  expectIgnored(path, /shorter than the point/);
});

it("a log cut back, then appended past the point", () => {
  const { path, size } = logWithPoint(200);
  const cut = readFileSync(path).indexOf(JSON.stringify(logTurns(150, 150)[0]));
  truncateSync(path, cut);
  writeFileSync(path, lines(otherTurns(150, 260)), { flag: "a" });
  expect(readFileSync(path).length).toBeGreaterThan(size);
  expectIgnored(path, /not the ones it was written after/);
});

it("a log replaced by another of the same session", () => {
  const { path, size } = logWithPoint(200);
  writeEntries(path, dirname(path), otherTurns(1, 200));
  expect(readFileSync(path).length).toBe(size);
  expectIgnored(path, /not the ones it was written after/);
});

it("a log compacted since (the point left by a crash after the rename)", () => {
  const { path, size } = logWithPoint(200);
  copyFileSync(`${path}.restore`, `${path}.stale`);
  const journal = FileJournal.open(logFiles(path), sessionId);
  expect(journal.compact()).toBe(true);
  // The compaction removes the point it made stale.
  expect(existsSync(`${path}.restore`)).toBe(false);
  journal.append(...logTurns(201, 400));
  journal.close();
  expect(readFileSync(path).length).toBeGreaterThan(size);
  copyFileSync(`${path}.stale`, `${path}.restore`);
  expectIgnored(path, /format changed/);
});
