// Test support for restore points (workers/log/restore-point.ts): a log file's journal as a worker opens it, and what
// a restore gives a session, to compare a restore from a point with one from the log's start.
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isReplayed } from "../../src/protocol/log/snapshot.js";
import { foldLog } from "../../src/protocol/log/session-state.js";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { FileJournal, type LogFiles } from "../../workers/log/journal-file.js";
import { header } from "./durable.js";
import { tempDir } from "./temp-dirs.js";

export const sessionId = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";

/** The files of the log at `path`, never compacted on its own; what it logs is kept in `said`. */
export function logFiles(path: string, said: string[] = []): LogFiles {
  return {
    path,
    sidecarPath: `${path}.meta`,
    compactingPath: `${path}.compact`,
    restorePointPath: `${path}.restore`,
    compactBytes: 2 ** 40,
    log: (_level, msg, data) => void said.push(`${msg}: ${JSON.stringify(data)}`),
  };
}

export const lines = (entries: readonly unknown[]): string =>
  entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");

/** A log of the header and `entries`. */
export function writeEntries(path: string, cwd: string, entries: readonly LogEntry[]): void {
  writeFileSync(path, lines([header(sessionId, cwd), ...entries]));
}

/** A journal open on a new log with no entry yet, in a directory of its own: the log's path, its point's, the journal. */
export function journalOnEmptyLog(): { path: string; point: string; journal: FileJournal } {
  const dir = tempDir("ash-restore-point-");
  const path = join(dir, `${sessionId}.jsonl`);
  writeEntries(path, dir, []);
  return { path, point: `${path}.restore`, journal: FileJournal.open(logFiles(path), sessionId) };
}

/** Everything a restore gives the session. */
export function restoredSession(journal: FileJournal) {
  return {
    state: foldLog(journal.base(), journal.entries()),
    turns: journal.turns,
    title: journal.title,
    shown: journal.shown,
    // What session/load shows: replayed() then the entries since the base, of the kinds it replays.
    replayed: [...journal.replayed(), ...journal.entries()].filter(isReplayed),
  };
}

/** The log at `path` restored from its start: a copy of it opened without its point (the copy is repaired, not it). */
export function restoredFromStart(path: string) {
  const copy = `${path}.copy`;
  copyFileSync(path, copy);
  const journal = FileJournal.open(logFiles(copy), sessionId);
  try {
    if (existsSync(`${copy}.restore`)) throw new Error("the copy has a restore point");
    return restoredSession(journal);
  } finally {
    journal.close();
  }
}
