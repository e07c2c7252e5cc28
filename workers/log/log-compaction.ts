// Writes a compacted log: the header (formatVersion 2, every other field as it was), the snapshot, the replayable
// history (the old log's, byte for byte, then the entries added since), into a new file that is flushed and renamed
// over the log, then the directory is flushed. A process killed at any moment leaves the old log or the new one,
// each whole; a new file left unrenamed is ignored, and overwritten by the next compaction.
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { snapshotLine } from "../../src/protocol/log/snapshot.js";
import type { SessionState } from "../../src/protocol/log/session-state.js";
import { COMPACTED_LOG_FORMAT_VERSION } from "../../src/protocol/log/session-log.js";
import type { JournalEntry } from "./journal.js";

export interface CompactionInput {
  headerLine: string;
  base: SessionState;
  /** The old log's replayable history, as its bytes. */
  replayed: Buffer;
  replayedLines: number;
  /** The entries since, to show on session/load. */
  added: readonly JournalEntry[];
}

export interface CompactedLog {
  /** The parts of the new file: header and snapshot lines, the replayable history. */
  head: Buffer;
  history: Buffer[];
  replay: { start: number; bytes: number; lines: number };
  bytes: number;
}

/** A compacted log but for the old history's bytes, which it keeps as they are: enough to know its size. */
export interface LogRewrite {
  head: Buffer;
  /** The replayable entries since, after the old history. */
  added: Buffer;
  replay: { start: number; bytes: number; lines: number };
  bytes: number;
}

/** The new log without the old history read (pure): replayedBytes is that history's size. */
export function logRewrite(input: Omit<CompactionInput, "replayed">, replayedBytes: number): LogRewrite {
  const header = {
    ...(JSON.parse(input.headerLine) as Record<string, unknown>),
    formatVersion: COMPACTED_LOG_FORMAT_VERSION,
  };
  const added = Buffer.from(input.added.map((entry) => `${JSON.stringify(entry)}\n`).join(""));
  const replay = { bytes: replayedBytes + added.length, lines: input.replayedLines + input.added.length };
  const headerLine = `${JSON.stringify(header)}\n`;
  const head = Buffer.from(
    `${headerLine}${snapshotLine({ base: input.base, replayBytes: replay.bytes, replayLines: replay.lines })}\n`,
  );
  return { head, added, replay: { start: head.length, ...replay }, bytes: head.length + replay.bytes };
}

/** The new log's bytes (pure). */
export function compactedLog(input: CompactionInput): CompactedLog {
  const plan = logRewrite(input, input.replayed.length);
  return { head: plan.head, history: [input.replayed, plan.added], replay: plan.replay, bytes: plan.bytes };
}

/**
 * Writes the new log and renames it over the old one (the commit point); returns a descriptor open on it (read and
 * append), opened before the rename so nothing can fail between the commit and the switch to the new file.
 * syncDirOf then flushes the rename. replayed: the old log's replayable history, as its bytes.
 */
export function writeCompactedLog(
  files: { path: string; compactingPath: string },
  plan: LogRewrite,
  replayed: Buffer,
): number {
  let fd: number | null = null;
  try {
    fd = openSync(
      files.compactingPath,
      constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND,
      0o644,
    );
    for (const part of [plan.head, replayed, plan.added]) {
      for (let offset = 0; offset < part.length;) offset += writeSync(fd, part, offset, part.length - offset);
    }
    fsyncSync(fd);
    renameSync(files.compactingPath, files.path);
    return fd;
  } catch (error) {
    // Before the rename the log is untouched: the half-written file goes (a disk that is full gets its room back).
    if (fd !== null) closeSync(fd);
    rmSync(files.compactingPath, { force: true });
    throw error;
  }
}

/** Makes the rename durable; the caller has already switched to the new file (the old one is gone either way). */
export function syncDirOf(path: string): void {
  const dir = openSync(dirname(path), "r");
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}
