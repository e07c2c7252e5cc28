// A session's journal as its append-only log file. Appends are synchronous (the write call has returned before
// the agent loop posts the event that shows the entry); every turn end is fdatasynced and refreshes the sidecar.
// Once the entries since the log's last snapshot pass compactBytes, the log is compacted when the session is idle
// (after a turn has ended and been posted, never during one): see log-compaction.ts. Once the log has grown enough
// since the state the journal holds was last written down (a compaction's snapshot or a restore point), a restore
// point is written beside it at the same moment, so that a restore starts there: see restore-point.ts.
import {
  closeSync,
  constants,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { isReplayed } from "../../src/protocol/log/snapshot.js";
import {
  emptyState,
  foldLog,
  foldSummary,
  type SessionState,
  type SessionSummary,
} from "../../src/protocol/log/session-state.js";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  LogError,
  SessionSidecar,
  SIDECAR_FORMAT,
  type LogHeader,
} from "../../src/protocol/log/session-log.js";
import { LogWriteError, type Journal, type JournalEntry } from "./journal.js";
import { logRewrite, syncDirOf, writeCompactedLog } from "./log-compaction.js";
import { parseReplayed, replayableIn, restoreLogFrom } from "./log-repair.js";
import {
  logCheck,
  readRestorePoint,
  removeRestorePoint,
  restorePointFile,
  writeRestorePoint,
  type ReplayExtent,
} from "./restore-point.js";

/** Never creates the file: a missing log is an error, not a new empty one. */
const READ_APPEND = constants.O_RDWR | constants.O_APPEND;

export interface LogFiles {
  path: string;
  sidecarPath: string;
  /** Where a compaction writes the new log before renaming it over path. */
  compactingPath: string;
  /** The log's restore point (restore-point.ts). */
  restorePointPath: string;
  /** Compact once the entries since the last snapshot take this many bytes. */
  compactBytes: number;
  /** Says how a compaction went (or why it did not), and why a restore point was not used. */
  log(level: "info" | "warn", msg: string, data: Record<string, unknown>): void;
}

export interface RepairReport {
  droppedBytes: number;
  appended: JournalEntry[];
}

/**
 * A restore point is written once the log has grown this much since the state the journal holds was last written
 * down, and by at least half the last point's size. A point costs about its size to write and to read, and its size
 * is the state's, which grows with the conversation: half of it in new log between points keeps what points write
 * under twice what the log itself takes, however long the session. The floor bounds what a restore parses after a
 * point (a cold worker reads and checks about 30 MiB of entries a second: 256 KiB in under 10 ms), and spares short
 * sessions a second file.
 */
export const RESTORE_POINT_MIN_BYTES = 256 * 1024;

export class FileJournal implements Journal {
  readonly header: LogHeader;
  readonly repair: RepairReport;
  readonly #files: LogFiles;
  readonly #headerLine: string;
  /** The state at #baseAt: the header's, a compacted log's snapshot's, or a restore point's. */
  #base: SessionState;
  #formatVersion: number;
  #replay: ReplayExtent;
  /** Where #entries start in the log: the end of the replayable history, or a restore point's offset. */
  #baseAt: number;
  /** Lines of the log before #baseAt, and the replayable entries among them. */
  #linesBefore: number;
  #shownBefore: number;
  #entries: JournalEntry[];
  /** Bytes of the entries after the replayable history. */
  #tailBytes: number;
  #turnOpen = false;
  /** Set while a compaction or a restore point is scheduled (scheduleIdleWork). */
  #idleWorkDue = false;
  /** The size of the last restore point read or written (0: none). */
  #restorePointBytes = 0;
  /** The tail's size at which the next compaction is tried. */
  #compactAtTail: number;
  #sidecarFd: number | null = null;
  #sidecarLength = 0;
  #fd: number | null;
  /** The base and every entry since, folded. */
  #summary: SessionSummary;
  /** Replayable entries in #entries. */
  #shownAfter = 0;

  /** Restores the log with load-repair; throws LogError when it is not a usable log of this session. */
  static open(files: LogFiles, sessionId: string): FileJournal {
    let fd: number;
    try {
      // Read and append: a compaction reads the replayable history back through it.
      fd = openSync(files.path, READ_APPEND);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new LogError(
        code === "ENOENT" ? "the log file is missing" : `it cannot be read (${code ?? (error as Error).message})`,
      );
    }
    try {
      return FileJournal.#restore(fd, files, sessionId);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  static #restore(fd: number, files: LogFiles, sessionId: string): FileJournal {
    const stat = fstatSync(fd);
    const stored = readRestorePoint(files.restorePointPath, sessionId);
    const point = stored && "point" in stored ? stored.point : null;
    const restored = restoreLogFrom((position, length) => readAt(fd, position, length), stat.size, sessionId, point);
    const refused = stored && "refused" in stored ? stored.refused : restored.pointRefused;
    if (refused !== null) {
      // The log is the truth: it was read from its start, and a point that did not fit it never will.
      files.log(stored && "refused" in stored ? "warn" : "info", "session restore point ignored", { reason: refused });
      try {
        removeRestorePoint(files.restorePointPath);
      } catch {
        // read again (and refused again) at the next open, until a new point replaces it
      }
    }
    const modified = stat.mtime.toISOString();
    if (restored.droppedBytes > 0) ftruncateSync(fd, restored.validLength);
    const journal = new FileJournal(fd, files, restored.header, restored.headerLine, {
      base: restored.base ?? emptyState(restored.header),
      replay: restored.replay,
      baseAt: restored.entriesStart,
      linesBefore: restored.linesBefore,
      shownBefore: restored.shownBefore,
      entries: restored.entries,
      repair: { droppedBytes: restored.droppedBytes, appended: restored.repairs },
    });
    if (restored.point && stored && "point" in stored) journal.#restorePointBytes = stored.bytes;
    journal.#tailBytes = restored.validLength - restored.replay.start - restored.replay.bytes;
    journal.append(...restored.repairs);
    if (restored.droppedBytes > 0 || restored.repairs.length > 0) fsyncSync(fd);
    journal.#writeSidecar(previousUpdate(files.sidecarPath, sessionId) ?? modified);
    // A long log read from its start (none was written, or it did not fit) gets a point now, not at its next turn.
    journal.#scheduleIdleWork();
    return journal;
  }

  private constructor(
    fd: number,
    files: LogFiles,
    header: LogHeader,
    headerLine: string,
    restored: {
      base: SessionState;
      replay: ReplayExtent;
      baseAt: number;
      linesBefore: number;
      shownBefore: number;
      entries: JournalEntry[];
      repair: RepairReport;
    },
  ) {
    this.#fd = fd;
    this.#files = files;
    this.header = header;
    this.#headerLine = headerLine;
    this.#formatVersion = header.formatVersion;
    const { base, replay, entries, repair } = restored;
    this.#base = base;
    this.#replay = replay;
    this.#baseAt = restored.baseAt;
    this.#linesBefore = restored.linesBefore;
    this.#shownBefore = restored.shownBefore;
    this.#entries = entries;
    this.#tailBytes = 0;
    this.#compactAtTail = files.compactBytes;
    this.repair = repair;
    this.#summary = base;
    for (const entry of entries) this.#count(entry);
  }

  get turns(): number {
    return this.#summary.turns;
  }

  get title(): string | null {
    return this.#summary.title;
  }

  get shown(): number {
    return this.#shownBefore + this.#shownAfter;
  }

  /** The session as of the log's snapshot or restore point (the header's settings for a log with neither). */
  base(): SessionState {
    return this.#base;
  }

  append(...entries: JournalEntry[]): void {
    // After close nothing this worker does reaches the client any more, and the log may have a new writer.
    if (this.#fd === null || entries.length === 0) return;
    let lines = "";
    for (const entry of entries) lines += `${JSON.stringify(entry)}\n`;
    const bytes = Buffer.from(lines);
    try {
      for (let offset = 0; offset < bytes.length;) offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // No partial record may stay: the next append would follow it, and a damaged line mid-log costs every turn after it.
      try {
        ftruncateSync(this.#fd, this.#logBytes());
      } catch {
        // the record's tail is then repaired away when the log is next opened
      }
      throw new LogWriteError("append", error);
    }
    this.#tailBytes += bytes.length;
    for (const entry of entries) {
      this.#entries.push(entry);
      this.#count(entry);
    }
  }

  endTurn(): void {
    if (this.#fd === null) return;
    // The appended data and the file's new size: all a later read of the log needs (no other metadata).
    try {
      fdatasyncSync(this.#fd);
    } catch (error) {
      throw new LogWriteError("fdatasync", error);
    }
    this.#writeSidecar(new Date().toISOString());
    this.#scheduleIdleWork();
  }

  entries(): readonly JournalEntry[] {
    return this.#entries;
  }

  recordsBefore(): null {
    return null;
  }

  /** The replayable history, then the replayable entries between it and a restore point (read from the log). */
  replayed(): readonly JournalEntry[] {
    if (this.#fd === null) return [];
    const history =
      this.#replay.bytes === 0 ? [] : parseReplayed(this.#read(this.#replay.start, this.#replay.bytes), 3);
    const skipped = this.#skippedReplayable();
    return skipped.length === 0 ? history : history.concat(skipped);
  }

  /**
   * Rewrites the log as its snapshot, its replayable history and nothing after (crash-safe: a new file, flushed,
   * renamed over the log, the directory flushed). Does nothing while a turn is open, nor when the new log would not
   * be smaller (its snapshot repeats the conversation, so a log of large outputs can only grow): then the next try
   * waits until another compactBytes have been appended. Returns whether it did.
   */
  compact(): boolean {
    const fd = this.#fd;
    if (fd === null || this.#turnOpen) return false;
    const bytesBefore = this.#logBytes();
    const base = foldLog(this.#base, this.#entries);
    const plan = logRewrite(
      {
        headerLine: this.#headerLine,
        base,
        replayedLines: this.#replay.lines,
        added: this.#skippedReplayable().concat(this.#entries.filter(isReplayed)),
      },
      this.#replay.bytes,
    );
    if (plan.bytes >= bytesBefore) {
      this.#compactAtTail = this.#tailBytes + this.#files.compactBytes;
      this.#files.log("info", "session log not compacted: the compacted log would not be smaller", {
        bytesBefore,
        bytesAfter: plan.bytes,
        turns: this.turns,
      });
      return false;
    }
    const next = writeCompactedLog(this.#files, plan, this.#read(this.#replay.start, this.#replay.bytes));
    // From the rename on, the log is the new file, whatever fails after it.
    this.#fd = next;
    this.#formatVersion = COMPACTED_LOG_FORMAT_VERSION;
    this.#rebase(base, plan.replay.start + plan.replay.bytes, 2 + plan.replay.lines, plan.replay.lines);
    this.#replay = plan.replay;
    this.#tailBytes = 0;
    this.#compactAtTail = this.#files.compactBytes;
    // The compacted log's snapshot is its restore point now; the old point no longer fits the log in any case.
    this.#restorePointBytes = 0;
    try {
      removeRestorePoint(this.#files.restorePointPath);
    } catch (error) {
      this.#files.log("warn", "stale restore point not removed after a compaction", {
        reason: (error as Error).message,
      });
    }
    try {
      closeSync(fd);
      syncDirOf(this.#files.path);
    } catch (error) {
      this.#files.log("warn", "sessions directory not flushed after a compaction", {
        reason: (error as Error).message,
      });
    }
    this.#files.log("info", "session log compacted", { bytesBefore, bytesAfter: plan.bytes, turns: this.turns });
    return true;
  }

  close(): void {
    if (this.#fd === null) return;
    const fd = this.#fd;
    this.#fd = null;
    fsyncSync(fd);
    closeSync(fd);
    if (this.#sidecarFd !== null) closeSync(this.#sidecarFd);
    this.#sidecarFd = null;
  }

  /**
   * Writes a restore point at the log's end, and the journal starts from it (its state folded, its entries dropped):
   * between turns only (returns false during one). Every turn end that has grown the log enough since writes one.
   */
  writeRestorePoint(): boolean {
    if (this.#fd === null || this.#turnOpen) return false;
    const logBytes = this.#logBytes();
    const base = foldLog(this.#base, this.#entries);
    const lines = this.#linesBefore + this.#entries.length;
    const shown = this.shown;
    const data = restorePointFile({
      sessionId: this.header.sessionId,
      logBytes,
      lines,
      shown,
      formatVersion: this.#formatVersion,
      replay: this.#replay,
      check: logCheck((position, length) => this.#read(position, length), logBytes),
      base,
    });
    writeRestorePoint(this.#files.restorePointPath, data);
    this.#rebase(base, logBytes, lines, shown);
    this.#restorePointBytes = data.length;
    return true;
  }

  #rebase(base: SessionState, baseAt: number, linesBefore: number, shownBefore: number): void {
    this.#base = base;
    this.#baseAt = baseAt;
    this.#linesBefore = linesBefore;
    this.#shownBefore = shownBefore;
    this.#entries = [];
    this.#shownAfter = 0;
  }

  #logBytes(): number {
    return this.#replay.start + this.#replay.bytes + this.#tailBytes;
  }

  /** The replayable entries between the replayable history and #baseAt (a restore point's), read from the log. */
  #skippedReplayable(): JournalEntry[] {
    const replayEnd = this.#replay.start + this.#replay.bytes;
    if (this.#baseAt === replayEnd) return [];
    // The header, a compacted log's snapshot line and its replayable history come first.
    const firstLine = (this.#formatVersion === COMPACTED_LOG_FORMAT_VERSION ? 3 : 2) + this.#replay.lines;
    return replayableIn(this.#read(replayEnd, this.#baseAt - replayEnd), firstLine);
  }

  #count(entry: JournalEntry): void {
    this.#summary = foldSummary(this.#summary, entry);
    if (isReplayed(entry)) this.#shownAfter++;
    if (entry.type === "turn_start") this.#turnOpen = true;
    else if (entry.type === "turn_end") this.#turnOpen = false;
  }

  /**
   * After the turn's end has been posted (or the log opened): a compaction, then a restore point if one is still
   * wanted (a compaction makes it needless). Either delays the next prompt of this session only, not its answer.
   */
  #scheduleIdleWork(): void {
    if (this.#idleWorkDue || (!this.#compactionWanted() && !this.#restorePointWanted())) return;
    this.#idleWorkDue = true;
    setTimeout(() => {
      this.#idleWorkDue = false;
      if (this.#compactionWanted()) {
        try {
          this.compact();
        } catch (error) {
          // The log is as it was (the rename is the commit point); the next turn end tries again.
          this.#files.log("warn", "session log not compacted", { reason: (error as Error).message });
        }
      }
      if (this.#restorePointWanted()) {
        try {
          this.writeRestorePoint();
        } catch (error) {
          // A cache: the next restore reads more of the log, and the next turn end tries again.
          this.#files.log("warn", "session restore point not written", { reason: (error as Error).message });
        }
      }
    }, 0);
  }

  #compactionWanted(): boolean {
    return this.#tailBytes >= this.#compactAtTail;
  }

  #restorePointWanted(): boolean {
    return (
      this.#fd !== null &&
      !this.#turnOpen &&
      this.#logBytes() - this.#baseAt >= Math.max(RESTORE_POINT_MIN_BYTES, this.#restorePointBytes / 2)
    );
  }

  #read(position: number, length: number): Buffer {
    const buffer = readAt(this.#fd!, position, length);
    if (buffer.length < length) throw new LogError("its replayable history ends early (the log was cut)");
    return buffer;
  }

  #writeSidecar(updatedAt: string): void {
    const sidecar: SessionSidecar = {
      format: SIDECAR_FORMAT,
      sessionId: this.header.sessionId,
      cwd: this.header.cwd,
      title: this.#summary.title,
      createdAt: this.header.createdAt,
      updatedAt,
      turns: this.#summary.turns,
      ...(this.header.tenant ? { tenant: this.header.tenant } : {}),
      ...(this.header.parent ? { parent: this.header.parent } : {}),
      ...(this.header.forkOf ? { forkOf: this.header.forkOf } : {}),
    };
    // Rewritten in place with one write, padded with spaces to at least its previous length, so a reader sees
    // one whole JSON document (spaces after JSON are allowed). A rename per turn would cost as much as the
    // fsync: ext4 flushes a file renamed over another. The sidecar is a listing cache; the log is the truth.
    this.#sidecarFd ??= openSync(this.#files.sidecarPath, "w");
    const json = JSON.stringify(sidecar);
    const bytes = Buffer.from(json.padEnd(this.#sidecarLength));
    this.#sidecarLength = bytes.length;
    for (let offset = 0; offset < bytes.length;)
      offset += writeSync(this.#sidecarFd, bytes, offset, bytes.length - offset, offset);
  }
}

/** Up to `length` bytes at `position`: fewer only where the file ends. */
function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let offset = 0;
  while (offset < length) {
    const n = readSync(fd, buffer, offset, length - offset, position + offset);
    if (n === 0) break;
    offset += n;
  }
  return buffer.subarray(0, offset);
}

function previousUpdate(sidecarPath: string, sessionId: string): string | null {
  try {
    const parsed = SessionSidecar.safeParse(JSON.parse(readFileSync(sidecarPath, "utf8")));
    return parsed.success && parsed.data.sessionId === sessionId ? parsed.data.updatedAt : null;
  } catch {
    return null;
  }
}
