// A restore point: a cache beside a session's log (sessions/<id>.jsonl.restore) of what a restore needs to start at an
// offset of the log instead of its beginning: the session's state there (a snapshot line), how many lines and
// replayable entries lie before it, and a check that the log's bytes before it are the ones it was written after.
// The log is the truth: a point that does not match it, or is damaged, is refused and the log read from its start.
//   sha256 of what follows (hex) \n the point's fields (JSON) \n the snapshot line (log/snapshot.ts) \n
// Written to a new file renamed over the old one, never flushed: a crash leaves the old point, none, or a torn one
// that its digest refuses.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { parseSnapshotLine, snapshotLine } from "../../src/protocol/log/snapshot.js";
import { freshRestorePoint, LogError } from "../../src/protocol/log/session-log.js";
import type { SessionState } from "../../src/protocol/log/session-state.js";
import { sha256Hex } from "../sha256.js";

export const RESTORE_POINT_FORMAT = "acp-session-host/restore-point";
const RESTORE_POINT_VERSION = 1;
/**
 * Bytes before a point's offset that its check covers: the last turn's lines, each of which carries the turn's id (a
 * UUID), so a log cut back, replaced or compacted does not match it. Read and hashed in microseconds.
 */
const CHECKED_BYTES = 4096;

/** A compacted log's replayable history (empty for a log never compacted: it starts after the header). */
export interface ReplayExtent {
  start: number;
  bytes: number;
  lines: number;
}

export interface RestorePoint {
  sessionId: string;
  /** The log offset it covers: a line boundary between turns. */
  logBytes: number;
  /** Lines of the log before logBytes (so line numbers in errors after it stay right). */
  lines: number;
  /** Replayable entries before logBytes (the replayable history's and those after it). */
  shown: number;
  /** The log's header format version and replayable history when it was written. */
  formatVersion: number;
  replay: ReplayExtent;
  /** The sha256 (hex) of the `bytes` bytes of the log before logBytes. */
  check: { bytes: number; sha256: string };
  /** The state at logBytes. */
  base: SessionState;
}

/** Reads `length` bytes of the log at `position` (fewer only at its end). */
type ReadLog = (position: number, length: number) => Buffer;

/** The check of the log's bytes before `logBytes`. */
export function logCheck(read: ReadLog, logBytes: number): RestorePoint["check"] {
  const bytes = Math.min(CHECKED_BYTES, logBytes);
  return {
    bytes,
    sha256: sha256Hex(read(logBytes - bytes, bytes)),
  };
}

/** The file's bytes (pure). */
export function restorePointFile(point: RestorePoint): Buffer {
  const { base, shown, ...fields } = point;
  // As a store's snapshot: no history follows it, and replayLines counts the replayable entries before it.
  const body = `${JSON.stringify({ format: RESTORE_POINT_FORMAT, version: RESTORE_POINT_VERSION, shown, ...fields })}\n${snapshotLine({ base, replayLines: shown, replayBytes: 0 })}\n`;
  return Buffer.from(`${sha256Hex(body)}\n${body}`);
}

export type ReadPoint = { point: RestorePoint; bytes: number } | { refused: string };

/** The point in a file's bytes, or why it is refused (torn, damaged, another session's, another format). */
export function parseRestorePoint(data: Buffer, sessionId: string): ReadPoint {
  const digestEnd = data.indexOf(0x0a);
  if (digestEnd < 0 || data[data.length - 1] !== 0x0a) return { refused: "it is torn" };
  const body = data.subarray(digestEnd + 1);
  if (data.toString("latin1", 0, digestEnd) !== sha256Hex(body))
    return { refused: "its digest does not match (torn or damaged)" };
  const text = body.toString("utf8");
  const fieldsEnd = text.indexOf("\n");
  let fields: unknown;
  try {
    fields = JSON.parse(text.slice(0, fieldsEnd));
  } catch {
    return { refused: "its fields are not JSON" };
  }
  if (!isRecord(fields) || fields.format !== RESTORE_POINT_FORMAT || fields.version !== RESTORE_POINT_VERSION)
    return { refused: "it is not a restore point of this version" };
  const { logBytes, lines, shown, formatVersion, replay, check } = fields;
  if (fields.sessionId !== sessionId) return { refused: "it names another session" };
  if (
    !isCount(logBytes) ||
    !isCount(lines) ||
    !isCount(shown) ||
    !isCount(formatVersion) ||
    !isRecord(replay) ||
    !isCount(replay.start) ||
    !isCount(replay.bytes) ||
    !isCount(replay.lines) ||
    !isRecord(check) ||
    !isCount(check.bytes) ||
    typeof check.sha256 !== "string"
  )
    return { refused: "its fields are corrupt" };
  let base: SessionState;
  try {
    base = parseSnapshotLine(text.slice(fieldsEnd + 1, -1)).base;
  } catch (error) {
    if (error instanceof LogError) return { refused: "its snapshot is corrupt" };
    throw error;
  }
  return {
    point: {
      sessionId,
      logBytes: logBytes as number,
      lines: lines as number,
      shown: shown as number,
      formatVersion: formatVersion as number,
      replay: { start: replay.start as number, bytes: replay.bytes as number, lines: replay.lines as number },
      check: { bytes: check.bytes as number, sha256: check.sha256 },
      base,
    },
    bytes: data.length,
  };
}

/** The point beside a log, or why it is refused; null when there is none. */
export function readRestorePoint(path: string, sessionId: string): ReadPoint | null {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    return { refused: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  return parseRestorePoint(data, sessionId);
}

/**
 * Why the point does not fit the log (its header's format version, `headerEnd` the offset of the newline ending the
 * header line, `size` its length), or null when it does: the log is the one it was written on, grown or not.
 */
export function restorePointMismatch(
  point: RestorePoint,
  log: { formatVersion: number; headerEnd: number; size: number; read: ReadLog },
): string | null {
  const { replay, logBytes } = point;
  if (logBytes > log.size) return "the log is shorter than the point (cut back or replaced)";
  if (point.formatVersion !== log.formatVersion) return "the log's format changed since (compacted or replaced)";
  const replayEnd = replay.start + replay.bytes;
  if (replay.start <= log.headerEnd || replayEnd > logBytes) return "its replayable history does not fit the log";
  if (point.formatVersion === 1 ? replay.start !== log.headerEnd + 1 : log.read(replay.start - 1, 1)[0] !== 0x0a)
    return "its replayable history does not start where the log's does";
  const check = logCheck(log.read, logBytes);
  if (check.bytes !== point.check.bytes || check.sha256 !== point.check.sha256)
    return "the log's bytes before it are not the ones it was written after (cut back, replaced or compacted)";
  return null;
}

/** Replaces the point (a new file renamed over it). */
export function writeRestorePoint(path: string, data: Buffer): void {
  const fresh = freshRestorePoint(path);
  writeFileSync(fresh, data);
  renameSync(fresh, path);
}

export function removeRestorePoint(path: string): void {
  rmSync(path, { force: true });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
