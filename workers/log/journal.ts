// What a session records of itself. The agent loop appends an entry before it posts the event that shows it,
// so nothing the client has seen can be missing from the record.
import { foldSummary, type SessionState, type SessionSummary } from "../../src/protocol/log/session-state.js";
import type { ReplayedRecords } from "../../src/protocol/port.js";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { isReplayed } from "../../src/protocol/log/snapshot.js";

/** The entry kinds and their schema live with the log format (src/protocol/log/session-log.ts). */
export type JournalEntry = LogEntry;

export interface Journal {
  /** Appends entries in one write (those a step records together); returns once the write call has returned. */
  append(...entries: JournalEntry[]): void;
  /** Makes the turn durable (fsync) and refreshes the listing summary. */
  endTurn(): void;
  /** The entries recorded since the base, oldest first (after load-repair). */
  entries(): readonly JournalEntry[];
  /** What the session was before its first entry in entries(): a compacted log's snapshot, else its header's. */
  base(): SessionState;
  /**
   * The entries before the base that session/load shows (read on demand), oldest first. A journal on a store the host
   * writes is handed them (recordsBefore says which it needs).
   */
  replayed(older?: ReplayedRecords): readonly JournalEntry[];
  /** The sequence number before which the host must hand replayed() the records; null when the journal reads them itself. */
  recordsBefore(): number | null;
  /** Turns ended, before the base and since. */
  readonly turns: number;
  /**
   * How many replayable entries the log holds (compaction keeps them all): the last one's number, which the events
   * showing it carry as their seq (the host's event ids are built on it).
   */
  readonly shown: number;
  /** The title session/list shows when none was set: the first line of the first prompt (null before one). */
  readonly title: string | null;
  close(): void;
}

/**
 * The log could not be written (a full disk, an I/O error). The append left no partial record behind; the turn is
 * not recorded past that point, and the session is restored from what its log holds.
 */
export class LogWriteError extends Error {
  constructor(what: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    super(
      `the session's log could not be written (${what}: ${code ? `${code}, ` : ""}${(cause as Error).message ?? String(cause)}); the turn is not recorded past that point, and the session's next prompt restores it from its log`,
    );
    this.name = "LogWriteError";
  }
}

/** A session that keeps its record in memory only. */
export class MemoryJournal implements Journal {
  readonly #base: SessionState;
  readonly #entries: JournalEntry[] = [];
  #summary: SessionSummary;
  #shown = 0;
  constructor(base: SessionState) {
    this.#base = base;
    this.#summary = base;
  }
  append(...entries: JournalEntry[]): void {
    for (const entry of entries) {
      this.#entries.push(entry);
      this.#summary = foldSummary(this.#summary, entry);
      if (isReplayed(entry)) this.#shown++;
    }
  }
  get shown(): number {
    return this.#shown;
  }
  get title(): string | null {
    return this.#summary.title;
  }
  endTurn(): void {}
  entries(): readonly JournalEntry[] {
    return this.#entries;
  }
  base(): SessionState {
    return this.#base;
  }
  replayed(): readonly JournalEntry[] {
    return [];
  }
  recordsBefore(): null {
    return null;
  }
  get turns(): number {
    return this.#summary.turns;
  }
  close(): void {}
}
