// A session's journal as its append-only log file. Appends are synchronous (the write call has returned before
// the agent loop posts the event that shows the entry); every turn end is fdatasynced and refreshes the sidecar.
// Once the entries since the log's last snapshot pass compactBytes, the log is compacted when the session is idle
// (after a turn has ended and been posted, never during one): see log-compaction.ts.
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
import { LogError, SessionSidecar, SIDECAR_FORMAT, type LogHeader } from "../../src/protocol/log/session-log.js";
import { LogWriteError, type Journal, type JournalEntry } from "./journal.js";
import { logRewrite, syncDirOf, writeCompactedLog } from "./log-compaction.js";
import { parseReplayed, restoreLogFrom } from "./log-repair.js";

/** Never creates the file: a missing log is an error, not a new empty one. */
const READ_APPEND = constants.O_RDWR | constants.O_APPEND;

export interface LogFiles {
  path: string;
  sidecarPath: string;
  /** Where a compaction writes the new log before renaming it over path. */
  compactingPath: string;
  /** Compact once the entries since the last snapshot take this many bytes. */
  compactBytes: number;
  /** Says how a compaction went (or why it did not). */
  log(level: "info" | "warn", msg: string, data: Record<string, unknown>): void;
}

export interface RepairReport {
  droppedBytes: number;
  appended: JournalEntry[];
}

/** Where the replayable history of the log lies (empty for a log never compacted). */
interface ReplaySection {
  start: number;
  bytes: number;
  lines: number;
}

export class FileJournal implements Journal {
  readonly header: LogHeader;
  readonly repair: RepairReport;
  readonly #files: LogFiles;
  readonly #headerLine: string;
  #base: SessionState;
  #replay: ReplaySection;
  #entries: JournalEntry[];
  /** Bytes of the entries after the replayable history. */
  #tailBytes: number;
  #turnOpen = false;
  #compactionDue = false;
  /** The tail's size at which the next compaction is tried. */
  #compactAtTail: number;
  #sidecarFd: number | null = null;
  #sidecarLength = 0;
  #fd: number | null;
  /** The base and every entry since, folded. */
  #summary: SessionSummary;
  /** Replayable entries after the replayable history (replay.lines of them are in it). */
  #shownInTail = 0;

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
    const restored = restoreLogFrom((position, length) => readAt(fd, position, length), stat.size, sessionId);
    const modified = stat.mtime.toISOString();
    if (restored.droppedBytes > 0) ftruncateSync(fd, restored.validLength);
    const snapshot = restored.snapshot;
    const replay = snapshot
      ? { start: restored.replayStart, bytes: snapshot.replayBytes, lines: snapshot.replayLines }
      : { start: restored.replayStart, bytes: 0, lines: 0 };
    const journal = new FileJournal(
      fd,
      files,
      restored.header,
      restored.headerLine,
      snapshot?.base ?? emptyState(restored.header),
      replay,
      restored.entries,
      {
        droppedBytes: restored.droppedBytes,
        appended: restored.repairs,
      },
    );
    journal.#tailBytes = restored.validLength - replay.start - replay.bytes;
    journal.append(...restored.repairs);
    if (restored.droppedBytes > 0 || restored.repairs.length > 0) fsyncSync(fd);
    journal.#writeSidecar(previousUpdate(files.sidecarPath, sessionId) ?? modified);
    journal.#scheduleCompaction();
    return journal;
  }

  private constructor(
    fd: number,
    files: LogFiles,
    header: LogHeader,
    headerLine: string,
    base: SessionState,
    replay: ReplaySection,
    entries: JournalEntry[],
    repair: RepairReport,
  ) {
    this.#fd = fd;
    this.#files = files;
    this.header = header;
    this.#headerLine = headerLine;
    this.#base = base;
    this.#replay = replay;
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
    return this.#replay.lines + this.#shownInTail;
  }

  /** The session as of the log's snapshot (the header's settings for a log never compacted). */
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
        ftruncateSync(this.#fd, this.#replay.start + this.#replay.bytes + this.#tailBytes);
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
    this.#scheduleCompaction();
  }

  entries(): readonly JournalEntry[] {
    return this.#entries;
  }

  recordsBefore(): null {
    return null;
  }

  replayed(): readonly JournalEntry[] {
    if (this.#fd === null || this.#replay.bytes === 0) return [];
    return parseReplayed(this.#read(this.#replay.start, this.#replay.bytes), 3);
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
    const bytesBefore = this.#replay.start + this.#replay.bytes + this.#tailBytes;
    const base = foldLog(this.#base, this.#entries);
    const plan = logRewrite(
      {
        headerLine: this.#headerLine,
        base,
        replayedLines: this.#replay.lines,
        added: this.#entries.filter(isReplayed),
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
    this.#base = base;
    this.#replay = plan.replay;
    this.#entries = [];
    this.#shownInTail = 0;
    this.#tailBytes = 0;
    this.#compactAtTail = this.#files.compactBytes;
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

  #count(entry: JournalEntry): void {
    this.#summary = foldSummary(this.#summary, entry);
    if (isReplayed(entry)) this.#shownInTail++;
    if (entry.type === "turn_start") this.#turnOpen = true;
    else if (entry.type === "turn_end") this.#turnOpen = false;
  }

  /** After the turn's end has been posted: a compaction delays the next prompt of this session only, not its answer. */
  #scheduleCompaction(): void {
    if (this.#compactionDue || this.#tailBytes < this.#compactAtTail) return;
    this.#compactionDue = true;
    setTimeout(() => {
      this.#compactionDue = false;
      if (this.#tailBytes < this.#compactAtTail) return;
      try {
        this.compact();
      } catch (error) {
        // The log is as it was (the rename is the commit point); the next turn end tries again.
        this.#files.log("warn", "session log not compacted", { reason: (error as Error).message });
      }
    }, 0);
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
