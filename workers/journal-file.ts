// A session's journal as its append-only log file. Appends are synchronous (the write call has returned before
// the agent loop posts the event that shows the entry); every turn end is fdatasynced and refreshes the sidecar.
import { closeSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { LogError, SessionSidecar, SIDECAR_FORMAT, titleFrom, type LogHeader } from "../src/protocol/session-log.js";
import { LogWriteError, type Journal, type JournalEntry } from "./journal.js";
import { restoreLog } from "./log-repair.js";

export interface LogFiles {
  path: string;
  sidecarPath: string;
}

export interface RepairReport {
  droppedBytes: number;
  appended: JournalEntry[];
}

export class FileJournal implements Journal {
  readonly header: LogHeader;
  readonly repair: RepairReport;
  readonly #entries: JournalEntry[];
  readonly #sidecarPath: string;
  #sidecarFd: number | null = null;
  #sidecarLength = 0;
  #fd: number | null;
  /** The log's length: where the next record starts, and where a failed append is cut back to. */
  #size: number;
  #turns: number;
  #title: string | null;

  /** Restores the log with load-repair; throws LogError when it is not a usable log of this session. */
  static open(files: LogFiles, sessionId: string): FileJournal {
    let data: Buffer;
    try {
      data = readFileSync(files.path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new LogError(code === "ENOENT" ? "the log file is missing" : `it cannot be read (${code ?? (error as Error).message})`);
    }
    const restored = restoreLog(data, sessionId);
    const modified = statSync(files.path).mtime.toISOString();
    const fd = openSync(files.path, "a");
    if (restored.droppedBytes > 0) ftruncateSync(fd, restored.validLength);
    const journal = new FileJournal(fd, files.sidecarPath, restored.header, restored.entries, {
      droppedBytes: restored.droppedBytes,
      appended: restored.repairs,
    });
    for (const entry of restored.repairs) journal.append(entry);
    if (restored.droppedBytes > 0 || restored.repairs.length > 0) fsyncSync(fd);
    journal.#writeSidecar(previousUpdate(files.sidecarPath, sessionId) ?? modified);
    return journal;
  }

  private constructor(fd: number, sidecarPath: string, header: LogHeader, entries: JournalEntry[], repair: RepairReport) {
    this.#fd = fd;
    this.#size = fstatSync(fd).size;
    this.#sidecarPath = sidecarPath;
    this.header = header;
    this.#entries = entries;
    this.repair = repair;
    this.#turns = entries.filter((entry) => entry.type === "turn_end").length;
    const first = entries.find((entry) => entry.type === "user_message");
    this.#title = first ? titleFrom(first.text) : null;
  }

  get turns(): number {
    return this.#turns;
  }

  append(entry: JournalEntry): void {
    // After close nothing this worker does reaches the client any more, and the log may have a new writer.
    if (this.#fd === null) return;
    const bytes = Buffer.from(`${JSON.stringify(entry)}\n`);
    try {
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.#fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      // No partial record may stay: the next append would follow it, and a damaged line mid-log costs every turn after it.
      try {
        ftruncateSync(this.#fd, this.#size);
      } catch {
        // the record's tail is then repaired away when the log is next opened
      }
      throw new LogWriteError("append", error);
    }
    this.#size += bytes.length;
    this.#entries.push(entry);
    if (entry.type === "turn_end") this.#turns++;
    if (entry.type === "user_message" && this.#title === null) this.#title = titleFrom(entry.text);
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
  }

  entries(): readonly JournalEntry[] {
    return this.#entries;
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

  #writeSidecar(updatedAt: string): void {
    const sidecar: SessionSidecar = {
      format: SIDECAR_FORMAT,
      sessionId: this.header.sessionId,
      cwd: this.header.cwd,
      title: this.#title,
      createdAt: this.header.createdAt,
      updatedAt,
      turns: this.#turns,
      ...(this.header.tenant ? { tenant: this.header.tenant } : {}),
    };
    // Rewritten in place with one write, padded with spaces to at least its previous length, so a reader sees
    // one whole JSON document (spaces after JSON are allowed). A rename per turn would cost as much as the
    // fsync: ext4 flushes a file renamed over another. The sidecar is a listing cache; the log is the truth.
    this.#sidecarFd ??= openSync(this.#sidecarPath, "w");
    const json = JSON.stringify(sidecar);
    const bytes = Buffer.from(json.padEnd(this.#sidecarLength));
    this.#sidecarLength = bytes.length;
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(this.#sidecarFd, bytes, offset, bytes.length - offset, offset);
  }
}

function previousUpdate(sidecarPath: string, sessionId: string): string | null {
  try {
    const parsed = SessionSidecar.safeParse(JSON.parse(readFileSync(sidecarPath, "utf8")));
    return parsed.success && parsed.data.sessionId === sessionId ? parsed.data.updatedAt : null;
  } catch {
    return null;
  }
}
