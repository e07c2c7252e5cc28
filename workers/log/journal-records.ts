// A session's journal on a store the host writes (PostgreSQL: src/store/postgres/). The worker is given the header, the
// last snapshot and the records after it; it appends by posting `log_records` events ahead of the events that show
// them (the host commits them, in group commits with the other sessions', and answers a turn's end only once they
// are committed); at each turn end it posts what session/list shows. Once the records since the last snapshot pass
// compactBytes it posts a new snapshot: the store keeps the records (session/load replays them), and a restore reads
// the snapshot and only the records after it.
import { isReplayed, parseSnapshotLine, snapshotLine } from "../../src/protocol/log/snapshot.js";
import {
  emptyState,
  foldLog,
  foldSummary,
  type SessionState,
  type SessionSummary,
} from "../../src/protocol/log/session-state.js";
import type { ReplayedRecords, WorkerLog } from "../../src/protocol/port.js";
import { LogError, parseHeaderLine, type LogEntry, type LogHeader } from "../../src/protocol/log/session-log.js";
import type { EventSink } from "../event-sink.js";
import type { Journal } from "./journal.js";
import { closeOpenTurn, parseEntry } from "./log-repair.js";

type RecordsLog = Extract<WorkerLog, { kind: "records" }>;

export class RecordJournal implements Journal {
  readonly header: LogHeader;
  /** Entries appended to close what the last worker left open (an interrupted turn). */
  readonly repairs: LogEntry[];
  readonly #events: EventSink;
  readonly #compactBytes: number;
  #base: SessionState;
  /** The sequence number of the first entry in #entries: the snapshot covers every record before it. */
  #baseSeq: number;
  #entries: LogEntry[];
  #nextSeq: number;
  #tailBytes = 0;
  /** Replayable records before #baseSeq (the snapshot's replayLines says how many) and since. */
  #shown: number;
  /** The base and every entry since, folded. */
  #summary: SessionSummary;
  #closed = false;

  /** Throws LogError when the header, the snapshot or a record is not usable. */
  static open(log: RecordsLog, sessionId: string, events: EventSink): RecordJournal {
    const header = parseHeaderLine(log.header, sessionId);
    const snapshot = log.snapshot === null ? null : parseSnapshotLine(log.snapshot);
    const base = snapshot?.base ?? emptyState(header);
    const entries = log.records.map((line, index) => {
      const entry = parseEntry(line);
      if (!entry) throw new LogError(`its record ${log.firstSeq + index} is not a valid log entry`);
      return entry;
    });
    const journal = new RecordJournal(header, base, log, entries, events, snapshot?.replayLines ?? 0);
    journal.append(...journal.repairs);
    return journal;
  }

  private constructor(
    header: LogHeader,
    base: SessionState,
    log: RecordsLog,
    entries: LogEntry[],
    events: EventSink,
    shownBefore: number,
  ) {
    this.header = header;
    this.#events = events;
    this.#compactBytes = log.compactBytes;
    this.#base = base;
    this.#baseSeq = log.firstSeq;
    this.#entries = entries;
    this.#nextSeq = log.firstSeq + entries.length;
    this.#summary = entries.reduce<SessionSummary>(foldSummary, base);
    this.#shown = shownBefore + entries.filter(isReplayed).length;
    this.repairs = closeOpenTurn(entries);
  }

  get turns(): number {
    return this.#summary.turns;
  }

  get title(): string | null {
    return this.#summary.title;
  }

  get shown(): number {
    return this.#shown;
  }

  base(): SessionState {
    return this.#base;
  }

  entries(): readonly LogEntry[] {
    return this.#entries;
  }

  append(...entries: LogEntry[]): void {
    // After close nothing this worker does reaches the store: the session may have another writer by now.
    if (this.#closed) return;
    for (const entry of entries) {
      const line = JSON.stringify(entry);
      const replayable = isReplayed(entry);
      if (replayable) this.#shown++;
      this.#events.postRecord(this.#nextSeq++, line, replayable);
      this.#tailBytes += line.length + 1;
      this.#entries.push(entry);
      this.#summary = foldSummary(this.#summary, entry);
    }
  }

  endTurn(): void {
    if (this.#closed) return;
    this.#events.post({ type: "log_summary", turns: this.turns, title: this.title });
    if (this.#tailBytes >= this.#compactBytes) this.#snapshot();
  }

  /** The records before the ones this worker holds, when the session was compacted; null when it holds them all. */
  recordsBefore(): number | null {
    return this.#baseSeq > 0 ? this.#baseSeq : null;
  }

  /** The replayable entries before the base: the host fetches them from the store (recordsBefore). */
  replayed(older?: ReplayedRecords): readonly LogEntry[] {
    if (!older) return [];
    return older.records.flatMap((line) => {
      const entry = parseEntry(line);
      if (!entry) throw new LogError("a record before its snapshot is not a valid log entry");
      return isReplayed(entry) ? [entry] : [];
    });
  }

  close(): void {
    this.#closed = true;
  }

  #snapshot(): void {
    const base = foldLog(this.#base, this.#entries);
    this.#events.post({
      type: "log_snapshot",
      seq: this.#nextSeq,
      // No history follows a store's snapshot: replayLines counts the replayable records before it instead.
      snapshot: snapshotLine({ base, replayLines: this.#shown, replayBytes: 0 }),
    });
    this.#base = base;
    this.#baseSeq = this.#nextSeq;
    this.#entries = [];
    this.#tailBytes = 0;
  }
}
