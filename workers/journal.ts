// What a session records of itself. The agent loop appends an entry before it posts the event that shows it,
// so nothing the client has seen can be missing from the record.
import type { LogEntry } from "../src/protocol/session-log.js";

/** The entry kinds and their schema live with the log format (src/protocol/session-log.ts). */
export type JournalEntry = LogEntry;

export interface Journal {
  /** Appends one entry; returns once the write call has returned. */
  append(entry: JournalEntry): void;
  /** Makes the turn durable (fsync) and refreshes the listing summary. */
  endTurn(): void;
  /** Every entry recorded so far, oldest first (after load-repair). */
  entries(): readonly JournalEntry[];
  close(): void;
}

/**
 * The log could not be written (a full disk, an I/O error). The append left no partial record behind; the turn is
 * not recorded past that point, and the session is restored from what its log holds.
 */
export class LogWriteError extends Error {
  constructor(what: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    super(`the session's log could not be written (${what}: ${code ? `${code}, ` : ""}${(cause as Error).message ?? String(cause)}); the turn is not recorded past that point, and the session's next prompt restores it from its log`);
    this.name = "LogWriteError";
  }
}

/** A session that keeps its record in memory only. */
export class MemoryJournal implements Journal {
  readonly #entries: JournalEntry[] = [];
  append(entry: JournalEntry): void {
    this.#entries.push(entry);
  }
  endTurn(): void {}
  entries(): readonly JournalEntry[] {
    return this.#entries;
  }
  close(): void {}
}
