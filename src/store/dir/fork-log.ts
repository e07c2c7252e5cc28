// A fork in the state dir: the source's log, up to its last ended turn, copied byte for byte under a header of the
// fork's own. A compacted source stays compacted (its snapshot line and replayable history are copied as they are,
// then the entries after them up to the fork point), so a fork costs one copy of the log and no parse of the
// conversation: only the header, the snapshot's settings (src/protocol/log/snapshot.ts) and the lines after the
// replayable history are read (../fork-point.ts). The source may be open in a worker appending to it: a turn in flight
// and a torn last line are left out.
import { open, type FileHandle } from "node:fs/promises";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  LogError,
  parseHeaderLine,
  type LogHeader,
} from "../../protocol/log/session-log.js";
import { SUMMARY_RULE } from "../../protocol/log/session-state.js";
import { snapshotSettings } from "../../protocol/log/snapshot.js";
import { entryTypeOf, forkPoint, type ForkLine, type ForkPointState } from "../fork-point.js";

/** A header longer than this is not one of ours. */
const HEADER_MAX_BYTES = 64 * 1024;
const COPY_CHUNK_BYTES = 1024 * 1024;

/** The source's header and its state at the fork point. */
export interface ForkSource extends ForkPointState {
  header: LogHeader;
}

/**
 * Writes the fork's log at `target` (a new file, written but not flushed) from the source's; `headerOf` makes the
 * fork's header from the source's state at the fork point. Throws LogError when the source is not a usable log.
 */
export async function writeForkLog(
  source: string,
  sourceId: string,
  target: string,
  headerOf: (state: ForkSource) => LogHeader,
): Promise<{ state: ForkSource; bytes: number }> {
  const input = await open(source, "r");
  try {
    const size = (await input.stat()).size;
    const headerEnd = await lineEnd(input, 0, Math.min(size, HEADER_MAX_BYTES));
    if (headerEnd < 0)
      throw new LogError(size === 0 ? "the file is empty (no header)" : "its header line is torn or too long");
    const header = parseHeaderLine((await readAt(input, 0, headerEnd)).toString("utf8"), sourceId);
    const bodyStart = headerEnd + 1;
    let base: ForkPointState;
    let tailStart = bodyStart;
    if (header.formatVersion === COMPACTED_LOG_FORMAT_VERSION) {
      const snapshotEnd = await lineEnd(input, bodyStart, size);
      if (snapshotEnd < 0) throw new LogError("its snapshot line (line 2) is torn");
      const snapshot = snapshotSettings((await readAt(input, bodyStart, snapshotEnd - bodyStart)).toString("utf8"));
      tailStart = snapshotEnd + 1 + snapshot.replayBytes;
      if (tailStart > size)
        throw new LogError("its replayable history is not the size its snapshot says (the log is damaged)");
      base = {
        mode: snapshot.mode,
        model: snapshot.model,
        systemPrompt: snapshot.systemPrompt,
        turns: snapshot.turns,
        title: snapshot.title,
      };
    } else {
      base = {
        mode: header.mode,
        model: header.model,
        systemPrompt: header.systemPrompt ?? null,
        turns: 0,
        title: null,
      };
    }
    const tail = await readAt(input, tailStart, size - tailStart);
    const { state, length } = forkPointInLog(tail, base);
    const forkState = { header, ...state };
    const output = await open(target, "wx");
    let bytes = 0;
    try {
      const headerLine = Buffer.from(`${JSON.stringify(headerOf(forkState))}\n`);
      bytes += await writeAll(output, headerLine);
      // The snapshot line and the replayable history: copied without being read by this thread.
      for (let at = bodyStart; at < tailStart; at += COPY_CHUNK_BYTES) {
        bytes += await writeAll(output, await readAt(input, at, Math.min(COPY_CHUNK_BYTES, tailStart - at)));
      }
      bytes += await writeAll(output, tail.subarray(0, length));
    } finally {
      await output.close();
    }
    return { state: forkState, bytes };
  } finally {
    await input.close();
  }
}

/**
 * The fork point in the entries after a log's replayable history, and the state there (`length`: the bytes before it).
 * Where every line starts as entries are written ({"type":"…"), found with the buffer's own searches (a long log is
 * tens of thousands of lines): the last turn_start after the last turn_end, the turn_ends before the point, the last
 * line of each setting and the first user_message. Otherwise line by line (fork-point.ts).
 */
export function forkPointInLog(tail: Buffer, base: ForkPointState): { state: ForkPointState; length: number } {
  // Whole lines only: what follows the last newline is a write still going on.
  const whole = tail.subarray(0, tail.lastIndexOf(0x0a) + 1);
  if (!everyLineTyped(whole)) {
    const lines = [...linesOf(tail)];
    const { state, count } = forkPoint(lines, base, "last line may be torn");
    return { state, length: count === 0 ? 0 : lines[count - 1]!.end };
  }
  const openTurn = lastLineOf(whole, "turn_start");
  const length = openTurn > lastLineOf(whole, "turn_end") ? openTurn : whole.length;
  const before = whole.subarray(0, length);
  const entryAt = (start: number) =>
    JSON.parse(before.toString("utf8", start, before.indexOf(0x0a, start))) as Record<string, unknown>;
  const state = { ...base, turns: base.turns + countLinesOf(before, SUMMARY_RULE.counted) };
  const settings: Array<ForkLine> = [];
  for (const type of SUMMARY_RULE.lastWins) {
    const at = lastLineOf(before, type);
    if (at >= 0) settings.push({ type, entry: () => entryAt(at) });
  }
  const { firstWhileUntitled } = SUMMARY_RULE;
  const firstPrompt = state.title === null ? firstLineOf(before, firstWhileUntitled) : -1;
  if (firstPrompt >= 0) settings.push({ type: firstWhileUntitled, entry: () => entryAt(firstPrompt) });
  // Each setting's last line, folded on the base (the turns are counted already: no turn line among these).
  return { state: forkPoint(settings, state, "whole").state, length };
}

const LINE_START = Buffer.from('\n{"type":"');

function everyLineTyped(whole: Buffer): boolean {
  let lines = 0;
  for (let at = whole.indexOf(0x0a); at >= 0; at = whole.indexOf(0x0a, at + 1)) lines++;
  let typed = whole.subarray(0, LINE_START.length - 1).equals(LINE_START.subarray(1)) ? 1 : 0;
  for (let at = whole.indexOf(LINE_START); at >= 0; at = whole.indexOf(LINE_START, at + 1)) typed++;
  return lines === typed;
}

function lineHead(type: string): Buffer {
  return Buffer.from(`\n{"type":"${type}"`);
}

/** Where the last line of that type starts; -1 when there is none. */
function lastLineOf(whole: Buffer, type: string): number {
  const head = lineHead(type);
  const at = whole.lastIndexOf(head);
  if (at >= 0) return at + 1;
  return whole.subarray(0, head.length - 1).equals(head.subarray(1)) ? 0 : -1;
}

function firstLineOf(whole: Buffer, type: string): number {
  const head = lineHead(type);
  if (whole.subarray(0, head.length - 1).equals(head.subarray(1))) return 0;
  const at = whole.indexOf(head);
  return at >= 0 ? at + 1 : -1;
}

function countLinesOf(whole: Buffer, type: string): number {
  const head = lineHead(type);
  let count = whole.subarray(0, head.length - 1).equals(head.subarray(1)) ? 1 : 0;
  for (let at = whole.indexOf(head); at >= 0; at = whole.indexOf(head, at + 1)) count++;
  return count;
}

/** The whole lines of `tail` as entries; a line's head is enough to know its type (entryTypeOf). */
function* linesOf(tail: Buffer): Generator<ForkLine & { end: number }> {
  for (let start = 0; ;) {
    const newline = tail.indexOf(0x0a, start);
    if (newline < 0) return;
    const line = tail.subarray(start, newline);
    const parse = () => JSON.parse(line.toString("utf8")) as unknown;
    yield {
      type: entryTypeOf(line.toString("latin1", 0, Math.min(line.length, 40)), parse),
      entry: () => parse() as Record<string, unknown>,
      end: newline + 1,
    };
    start = newline + 1;
  }
}

/** The offset of the newline that ends the line starting at `start`, or -1 before `limit`: read in growing parts. */
async function lineEnd(file: FileHandle, start: number, limit: number): Promise<number> {
  for (let length = 64 * 1024; ; length *= 4) {
    const part = await readAt(file, start, Math.min(length, limit - start));
    const newline = part.indexOf(0x0a);
    if (newline >= 0) return start + newline;
    if (start + part.length >= limit) return -1;
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length);
  let offset = 0;
  while (offset < length) {
    const { bytesRead } = await file.read(buffer, offset, length - offset, position + offset);
    if (bytesRead === 0) break;
    offset += bytesRead;
  }
  return buffer.subarray(0, offset);
}

async function writeAll(file: FileHandle, bytes: Buffer): Promise<number> {
  for (let offset = 0; offset < bytes.length;)
    offset += (await file.write(bytes, offset, bytes.length - offset)).bytesWritten;
  return bytes.length;
}
