// A worker writes a restore point after a turn end (once the turn's end is posted) only when the log has grown by
// 256 KiB since the state its journal holds was last written down: not for a short session, and not again at the
// next turn end; a log that long read from its start gets one right after the open.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { FileJournal } from "../../workers/log/journal-file.js";
import { logTurn } from "../support/log-turns.js";
import {
  journalOnEmptyLog,
  logFiles,
  restoredFromStart,
  restoredSession,
  sessionId,
  writeEntries,
} from "../support/restore-points.js";
import { tempDir } from "../support/temp-dirs.js";

const THRESHOLD = 256 * 1024;
const afterPosting = () => new Promise((resolve) => setTimeout(resolve, 5));

/** Appends turn n as the agent loop does: its entries, then its end. */
function turn(journal: FileJournal, n: number): void {
  const entries: LogEntry[] = logTurn(n);
  for (const entry of entries) journal.append(entry);
  journal.endTurn();
}

it("at the first turn end past the threshold, not before it, and not again at the next", async () => {
  const { path, point, journal } = journalOnEmptyLog();
  let n = 0;
  while (statSync(path).size < THRESHOLD - 2_000) turn(journal, ++n);
  await afterPosting();
  expect(existsSync(point)).toBe(false);
  while (statSync(path).size < THRESHOLD + 1) turn(journal, ++n);
  // Written after the turn's end, not within it.
  expect(existsSync(point)).toBe(false);
  await afterPosting();
  expect(existsSync(point)).toBe(true);
  const first = readFileSync(point);
  turn(journal, ++n);
  await afterPosting();
  expect(readFileSync(point).equals(first)).toBe(true);
  journal.close();

  const expected = restoredFromStart(path);
  const reopened = FileJournal.open(logFiles(path), sessionId);
  expect(reopened.entries()).toEqual(logTurn(n));
  expect(restoredSession(reopened)).toEqual(expected);
  reopened.close();
});

it("right after the open of a log that long without one", async () => {
  const dir = tempDir("ash-restore-point-");
  const path = join(dir, `${sessionId}.jsonl`);
  const entries: LogEntry[] = [];
  for (let n = 1; Buffer.byteLength(JSON.stringify(entries)) < THRESHOLD + 10_000; n++) entries.push(...logTurn(n));
  writeEntries(path, dir, entries);
  const journal = FileJournal.open(logFiles(path), sessionId);
  expect(existsSync(`${path}.restore`)).toBe(false);
  await afterPosting();
  expect(existsSync(`${path}.restore`)).toBe(true);
  journal.close();
  const reopened = FileJournal.open(logFiles(path), sessionId);
  expect(reopened.entries()).toEqual([]);
  reopened.close();
});
