// Load-repair: reads a session log as the last process left it and says what to cut and what to append so that
// it is whole again. A torn last line is dropped; a turn with no end is closed as interrupted, after an
// "outcome unknown" result for each of its tool calls that has none. Anything else wrong is a LogError: the
// log is refused, never rewritten. A compacted log's replayable history is skipped, not read: only its snapshot and
// the entries after it are (a compaction happens between turns, so an open turn lies wholly after it).
import { parseSnapshotLine, type Snapshot } from "../../src/protocol/log/snapshot.js";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  LogError,
  parseHeaderLine,
  type LogEntry,
  type LogHeader,
} from "../../src/protocol/log/session-log.js";
import { asLogEntry } from "./log-entry-check.js";

export const OUTCOME_UNKNOWN = "outcome unknown: the session stopped while this tool call was running";
export const NOT_RUN = "tool call not run: the session stopped before it started";

export interface RestoredLog {
  header: LogHeader;
  /** The header line as written (a compaction keeps every field of it, known to this host or not). */
  headerLine: string;
  /** A compacted log's snapshot; null for a log never compacted. */
  snapshot: Snapshot | null;
  /** Where the replayable history starts (after the snapshot line); the entries start at replayStart + replayBytes. */
  replayStart: number;
  /** The entries after the snapshot's replayable history (all of them in a log never compacted). */
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

/** A log of `size` bytes read in parts: a compacted log's replayable history is never read. */
export function restoreLogFrom(read: ReadAt, size: number, sessionId: string): RestoredLog {
  const headerEnd = lineEnd(read, 0, size);
  if (headerEnd < 0)
    throw new LogError(size === 0 ? "the file is empty (no header)" : "its header line is torn (no newline)");
  const headerLine = read(0, headerEnd).toString("utf8");
  const header = parseHeaderLine(headerLine, sessionId);
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
    header,
    headerLine,
    snapshot,
    replayStart,
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
  const text = data.toString("utf8");
  const entries: LogEntry[] = [];
  for (let start = 0, line = firstLine; start < text.length; line++) {
    let newline = text.indexOf("\n", start);
    if (newline < 0) newline = text.length;
    const entry = parseEntry(text.slice(start, newline));
    if (!entry) throw new LogError(`line ${line} (in its replayable history) is not a valid log entry`);
    entries.push(entry);
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
