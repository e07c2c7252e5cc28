// Load-repair: reads a session log as the last process left it and says what to cut and what to append so that
// it is whole again. A torn last line is dropped; a turn with no end is closed as interrupted, after an
// "outcome unknown" result for each of its tool calls that has none. Anything else wrong is a LogError: the
// log is refused, never rewritten. A compacted log's replayable history is skipped, not read: only its snapshot and
// the entries after it are (a compaction happens between turns, so an open turn lies wholly after it). A restore point
// that fits the log (workers/log/restore-point.ts) skips the entries before its offset too: it is written between
// turns only, so an open turn lies wholly after it as well.
import { isReplayed, parseSnapshotLine, type Snapshot } from "../../src/protocol/log/snapshot.js";
import type { SessionState } from "../../src/protocol/log/session-state.js";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  LogError,
  parseHeaderLine,
  type LogEntry,
  type LogHeader,
} from "../../src/protocol/log/session-log.js";
import { asLogEntry } from "./log-entry-check.js";
import { restorePointMismatch, type ReplayExtent, type RestorePoint } from "./restore-point.js";

export const OUTCOME_UNKNOWN = "outcome unknown: the session stopped while this tool call was running";
export const NOT_RUN = "tool call not run: the session stopped before it started";

export interface RestoredLog {
  header: LogHeader;
  /** The header line as written (a compaction keeps every field of it, known to this host or not). */
  headerLine: string;
  /** A compacted log's snapshot; null for a log never compacted, and when restored from a point (it is not read). */
  snapshot: Snapshot | null;
  /** The replayable history: where it starts (after the snapshot line) and its size (none for a log never compacted). */
  replay: ReplayExtent;
  /** The state `entries` follow: the snapshot's or the point's; null for the header's. */
  base: SessionState | null;
  /** Where `entries` start: the end of the replayable history, or the restore point's offset. */
  entriesStart: number;
  /** Lines of the log before entriesStart, and the replayable entries among them. */
  linesBefore: number;
  shownBefore: number;
  /** The restore point the entries follow (null: none was given, or it does not fit the log: see pointRefused). */
  point: RestorePoint | null;
  pointRefused: string | null;
  /** The entries after entriesStart (all of them in a log never compacted and restored without a point). */
  entries: LogEntry[];
  /** Length of the part of the file made of whole, valid lines; the rest is a torn tail to truncate. */
  validLength: number;
  droppedBytes: number;
  /** Entries to append that close what the last process left open. */
  repairs: LogEntry[];
}

/** Reads `length` bytes at `position` (fewer only at the end of the file). */
export type ReadAt = (position: number, length: number) => Buffer;

/** A whole log in memory. */
export function restoreLog(data: Buffer, sessionId: string): RestoredLog {
  return restoreLogFrom((position, length) => data.subarray(position, position + length), data.length, sessionId);
}

/**
 * A log of `size` bytes read in parts: a compacted log's replayable history is never read, nor, given a restore point
 * that fits the log, anything before the point's offset.
 */
export function restoreLogFrom(
  read: ReadAt,
  size: number,
  sessionId: string,
  point: RestorePoint | null = null,
): RestoredLog {
  const headerEnd = lineEnd(read, 0, size);
  if (headerEnd < 0)
    throw new LogError(size === 0 ? "the file is empty (no header)" : "its header line is torn (no newline)");
  const headerLine = read(0, headerEnd).toString("utf8");
  const header = parseHeaderLine(headerLine, sessionId);
  const pointRefused = point
    ? restorePointMismatch(point, { formatVersion: header.formatVersion, headerEnd, size, read })
    : null;
  if (point && pointRefused === null) {
    return {
      ...readEntries(read, size, point.logBytes, point.lines),
      header,
      headerLine,
      snapshot: null,
      replay: point.replay,
      base: point.base,
      entriesStart: point.logBytes,
      linesBefore: point.lines,
      shownBefore: point.shown,
      point,
      pointRefused: null,
    };
  }
  let snapshot: Snapshot | null = null;
  let replayStart = headerEnd + 1;
  let tailStart = replayStart;
  // Lines before the tail: the header, the snapshot and the replayable history (for line numbers in errors).
  let lineNumber = 1;
  if (header.formatVersion === COMPACTED_LOG_FORMAT_VERSION) {
    // The snapshot and history were written whole and flushed before the file was renamed into place.
    const snapshotEnd = lineEnd(read, replayStart, size);
    if (snapshotEnd < 0) throw new LogError("its snapshot line (line 2) is torn");
    snapshot = parseSnapshotLine(read(replayStart, snapshotEnd - replayStart).toString("utf8"));
    replayStart = snapshotEnd + 1;
    tailStart = replayStart + snapshot.replayBytes;
    if (tailStart > size || (snapshot.replayBytes > 0 && read(tailStart - 1, 1)[0] !== 0x0a)) {
      throw new LogError("its replayable history is not the size its snapshot says (the log is damaged)");
    }
    lineNumber = 2 + snapshot.replayLines;
  }
  return {
    ...readEntries(read, size, tailStart, lineNumber),
    header,
    headerLine,
    snapshot,
    replay: { start: replayStart, bytes: snapshot?.replayBytes ?? 0, lines: snapshot?.replayLines ?? 0 },
    base: snapshot?.base ?? null,
    entriesStart: tailStart,
    linesBefore: lineNumber,
    shownBefore: snapshot?.replayLines ?? 0,
    point: null,
    pointRefused,
  };
}

/** The entries from `tailStart` (after `linesBefore` lines) to the end, a torn last line left out, and the repairs. */
function readEntries(
  read: ReadAt,
  size: number,
  tailStart: number,
  linesBefore: number,
): Pick<RestoredLog, "entries" | "validLength" | "droppedBytes" | "repairs"> {
  let lineNumber = linesBefore;
  const data = read(tailStart, size - tailStart);
  // Decoded once, not line by line (a call into the decoder for each of a long log's ten thousand lines). A newline
  // byte is never part of a UTF-8 sequence, so the text's newlines are the bytes' in the same order: the bytes give
  // offsets in the file, the text gives the lines.
  const text = data.toString("utf8");
  const entries: LogEntry[] = [];
  let valid = 0;
  for (let start = 0, textStart = 0; ;) {
    const newline = data.indexOf(0x0a, start);
    if (newline < 0) break;
    const textNewline = text.indexOf("\n", textStart);
    lineNumber++;
    const entry = parseEntry(text.slice(textStart, textNewline));
    if (!entry) {
      // A last line that is not an entry is the torn end of a write (a crash can leave zeros there too).
      if (data.indexOf(0x0a, newline + 1) < 0) break;
      throw new LogError(`line ${lineNumber} is not a valid log entry (the log is damaged before its end)`);
    }
    entries.push(entry);
    valid = newline + 1;
    start = newline + 1;
    textStart = textNewline + 1;
  }
  const validLength = tailStart + valid;
  return {
    entries,
    validLength,
    droppedBytes: size - validLength,
    repairs: closeOpenTurn(entries),
  };
}

/** The offset of the newline that ends the line starting at `start`, or -1: read in growing parts. */
function lineEnd(read: ReadAt, start: number, size: number): number {
  for (let length = 64 * 1024; ; length *= 4) {
    const part = read(start, Math.min(length, size - start));
    const newline = part.indexOf(0x0a);
    if (newline >= 0) return start + newline;
    if (start + part.length >= size) return -1;
  }
}

/** The replayable history of a compacted log (its bytes), parsed: a LogError if any of it is not an entry. */
export function parseReplayed(data: Buffer, firstLine: number): LogEntry[] {
  return parseLines(data, firstLine, "in its replayable history", () => true);
}

/** The replayable entries of whole lines of a log (the part a restore point skipped): a LogError if any is not an entry. */
export function replayableIn(data: Buffer, firstLine: number): LogEntry[] {
  return parseLines(data, firstLine, "before its restore point", isReplayed);
}

function parseLines(data: Buffer, firstLine: number, where: string, keep: (entry: LogEntry) => boolean): LogEntry[] {
  const text = data.toString("utf8");
  const entries: LogEntry[] = [];
  for (let start = 0, line = firstLine; start < text.length; line++) {
    let newline = text.indexOf("\n", start);
    if (newline < 0) newline = text.length;
    const entry = parseEntry(text.slice(start, newline));
    if (!entry) throw new LogError(`line ${line} (${where}) is not a valid log entry`);
    if (keep(entry)) entries.push(entry);
    start = newline + 1;
  }
  return entries;
}

export function parseEntry(text: string): LogEntry | null {
  try {
    return asLogEntry(JSON.parse(text));
  } catch {
    return null;
  }
}

/** Results for the open turn's unanswered tool calls (in call order), then its end. */
export function closeOpenTurn(entries: readonly LogEntry[]): LogEntry[] {
  const startIndex = entries.findLastIndex((entry) => entry.type === "turn_start");
  if (startIndex < 0) return [];
  const turnEntries = entries.slice(startIndex);
  const turnId = (entries[startIndex] as Extract<LogEntry, { type: "turn_start" }>).turnId;
  if (turnEntries.some((entry) => entry.type === "turn_end" && entry.turnId === turnId)) return [];

  const answered = new Set<string>();
  const started = new Map<string, Extract<LogEntry, { type: "tool_call" }>>();
  for (const entry of turnEntries) {
    if (entry.type === "tool_result") answered.add(entry.callId);
    if (entry.type === "tool_call") started.set(entry.callId, entry);
  }
  const repairs: LogEntry[] = [];
  for (const entry of turnEntries) {
    if (entry.type !== "assistant_message") continue;
    for (const call of entry.toolCalls) {
      if (answered.has(call.id)) continue;
      answered.add(call.id);
      const toolCall = started.get(call.id);
      repairs.push({
        type: "tool_result",
        turnId,
        // A call that never started was never shown: it gets an id of its own so the model sees an answer.
        toolCallId: toolCall?.toolCallId ?? crypto.randomUUID(),
        callId: call.id,
        name: call.name,
        result: toolCall ? OUTCOME_UNKNOWN : NOT_RUN,
        isError: true,
      });
    }
  }
  repairs.push({ type: "turn_end", turnId, stopReason: "interrupted" });
  return repairs;
}
