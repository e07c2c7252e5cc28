// Every session's appends of this host in one statement per round trip (group commit): while one statement is on
// its way, what arrives waits, and the next takes all of it, so a hundred sessions ending turns together cost one
// commit. Each append is conditional on the session's epoch: the statement locks (FOR SHARE) the rows of the
// sessions whose epoch is still the one this host holds, and writes only theirs; a session another host has taken
// over (its epoch bumped) gets nothing written, ever again, and is reported lost.
import type { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { Pool } from "pg";
import { sessionMoved, storeFault } from "../../request-errors.js";

interface Waiter {
  upTo: number;
  resolve(): void;
  reject(error: RequestError): void;
}

interface Writer {
  epoch: number;
  /** The next sequence number expected: committed plus queued. */
  appended: number;
  committed: number;
  /** Set once an append was lost: nothing more is written or committed for this writer. */
  failed: RequestError | null;
  waiters: Waiter[];
  records: Array<{ seq: number; line: string; replayable: boolean }>;
  summary: { turns: number; title: string | null } | null;
  snapshot: { seq: number; snapshot: string } | null;
}

const APPEND = `
WITH batch (id, epoch) AS (SELECT * FROM unnest($1::uuid[], $2::bigint[])),
owned AS (SELECT s.id FROM ash_sessions s WHERE (s.id, s.epoch) IN (SELECT id, epoch FROM batch) FOR SHARE),
recs AS (
  INSERT INTO ash_records (session_id, seq, epoch, replayable, entry)
  SELECT r.id, r.seq, r.epoch, r.replayable, r.entry
  FROM unnest($3::uuid[], $4::bigint[], $5::bigint[], $6::boolean[], $7::text[]) AS r (id, epoch, seq, replayable, entry)
  WHERE r.id IN (SELECT id FROM owned)
  ON CONFLICT DO NOTHING
  RETURNING session_id
),
upd AS (
  UPDATE ash_sessions s SET
    turns = COALESCE(u.turns, s.turns),
    title = COALESCE(s.title, u.title),
    updated_ms = CASE WHEN u.turns IS NULL THEN s.updated_ms ELSE (extract(epoch FROM clock_timestamp()) * 1000)::bigint END,
    snapshot = COALESCE(u.snapshot, s.snapshot),
    snapshot_seq = COALESCE(u.snapshot_seq, s.snapshot_seq)
  FROM unnest($8::uuid[], $9::integer[], $10::text[], $11::text[], $12::bigint[]) AS u (id, turns, title, snapshot, snapshot_seq)
  WHERE s.id = u.id AND s.id IN (SELECT id FROM owned)
  RETURNING s.id
)
SELECT ARRAY(SELECT id::text FROM owned) AS owned,
       ARRAY(SELECT session_id::text FROM recs) AS inserted,
       (SELECT count(*) FROM upd) AS updated`;

export interface GroupCommitOptions {
  pool: Pool;
  /** Names the store in errors. */
  label: string;
  /** A session this host held was found to be another's (its epoch moved on). */
  onLost(sessionId: string): void;
  /** Whether the last statement reached the database (for /healthz). */
  onReachable(reachable: boolean): void;
  /** Records of these sessions were committed (a client following one from another host reads them). */
  onCommitted(sessionIds: string[]): void;
}

export class GroupCommit {
  readonly #options: GroupCommitOptions;
  readonly #writers = new Map<string, Writer>();
  /** Writers with something queued, in the order they first queued it. */
  readonly #dirty = new Set<string>();
  #flushing: Promise<void> | null = null;
  #statements = 0;

  constructor(options: GroupCommitOptions) {
    this.#options = options;
  }

  /** Statements run so far (each is one round trip and one commit). */
  get statements(): number {
    return this.#statements;
  }

  /** A worker starts writing the session at this epoch, after the `committed` records it was given. */
  open(sessionId: string, epoch: number, committed: number): void {
    this.close(
      sessionId,
      storeFault(this.#options.label, `session ${sessionId}: its writer was replaced by a new worker's`),
    );
    this.#writers.set(sessionId, {
      epoch,
      appended: committed,
      committed,
      failed: null,
      waiters: [],
      records: [],
      summary: null,
      snapshot: null,
    });
  }

  /** The session left this host: what is still queued is dropped, what waits for it fails with `why`. */
  close(sessionId: string, why: RequestError): void {
    this.#fail(sessionId, why);
    this.#writers.delete(sessionId);
    this.#dirty.delete(sessionId);
  }

  append(sessionId: string, from: number, lines: readonly string[], replayable: readonly boolean[]): void {
    const writer = this.#writers.get(sessionId);
    if (!writer || writer.failed) return;
    if (from !== writer.appended) {
      this.#fail(
        sessionId,
        storeFault(
          this.#options.label,
          `session ${sessionId}: record ${from} arrived where ${writer.appended} was expected`,
        ),
      );
      return;
    }
    lines.forEach((line, index) =>
      writer.records.push({ seq: from + index, line, replayable: replayable[index] ?? false }),
    );
    writer.appended += lines.length;
    this.#queue(sessionId);
  }

  summary(sessionId: string, turns: number, title: string | null): void {
    const writer = this.#writers.get(sessionId);
    if (!writer || writer.failed) return;
    writer.summary = { turns, title };
    this.#queue(sessionId);
  }

  snapshot(sessionId: string, seq: number, snapshot: string): void {
    const writer = this.#writers.get(sessionId);
    if (!writer || writer.failed) return;
    writer.snapshot = { seq, snapshot };
    this.#queue(sessionId);
  }

  /** Resolves once everything appended so far is committed; rejects with why it cannot be. */
  committed(sessionId: string): Promise<void> {
    const writer = this.#writers.get(sessionId);
    if (!writer) return Promise.reject(sessionMoved(sessionId, "this host holds no lease on it"));
    if (writer.failed) return Promise.reject(writer.failed);
    if (writer.committed >= writer.appended && !this.#dirty.has(sessionId)) return Promise.resolve();
    return new Promise((resolve, reject) => writer.waiters.push({ upTo: writer.appended, resolve, reject }));
  }

  /** Resolves once nothing is queued or on its way (teardown, lease release). */
  async drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }

  #queue(sessionId: string): void {
    this.#dirty.add(sessionId);
    this.#flushing ??= this.#flush().finally(() => (this.#flushing = null));
  }

  async #flush(): Promise<void> {
    // Let the appends of this turn of the event loop join the statement.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#dirty.size > 0) {
      const batch = [...this.#dirty].flatMap((id) => {
        const writer = this.#writers.get(id);
        return writer
          ? [{ id, writer, records: writer.records.splice(0), summary: writer.summary, snapshot: writer.snapshot }]
          : [];
      });
      this.#dirty.clear();
      for (const { writer } of batch) {
        writer.summary = null;
        writer.snapshot = null;
      }
      await this.#commit(batch);
    }
  }

  async #commit(
    batch: Array<{
      id: string;
      writer: Writer;
      records: Writer["records"];
      summary: Writer["summary"];
      snapshot: Writer["snapshot"];
    }>,
  ): Promise<void> {
    const recordOf = batch.flatMap(({ id, writer, records }) =>
      records.map((record) => ({ id, epoch: writer.epoch, ...record })),
    );
    const updates = batch.filter(({ summary, snapshot }) => summary !== null || snapshot !== null);
    let owned: Set<string>;
    let inserted: Map<string, number>;
    try {
      this.#statements++;
      const { rows } = await this.#options.pool.query<{ owned: string[]; inserted: string[] }>(APPEND, [
        batch.map(({ id }) => id),
        batch.map(({ writer }) => writer.epoch),
        recordOf.map((record) => record.id),
        recordOf.map((record) => record.epoch),
        recordOf.map((record) => record.seq),
        recordOf.map((record) => record.replayable),
        recordOf.map((record) => record.line),
        updates.map(({ id }) => id),
        updates.map(({ summary }) => summary?.turns ?? null),
        updates.map(({ summary }) => summary?.title ?? null),
        updates.map(({ snapshot }) => snapshot?.snapshot ?? null),
        updates.map(({ snapshot }) => snapshot?.seq ?? null),
      ]);
      owned = new Set(rows[0]?.owned ?? []);
      inserted = new Map();
      for (const id of rows[0]?.inserted ?? []) inserted.set(id, (inserted.get(id) ?? 0) + 1);
      this.#options.onReachable(true);
    } catch (error) {
      this.#options.onReachable(false);
      const fault = storeFault(
        this.#options.label,
        `the session's records could not be committed: ${(error as Error).message}`,
      );
      // Whether the statement committed is unknown: each writer's worker must be replaced from what the store has.
      for (const { id } of batch) this.#fail(id, fault);
      return;
    }
    for (const { id, writer, records } of batch) {
      if (this.#writers.get(id) !== writer) continue;
      if (!owned.has(id)) {
        this.#fail(id, sessionMoved(id, "another host took it over (its lease moved on)"));
        this.#options.onLost(id);
        continue;
      }
      const count = inserted.get(id) ?? 0;
      if (count !== records.length) {
        this.#fail(
          id,
          storeFault(
            this.#options.label,
            `session ${id}: ${records.length - count} of its records were already in the store`,
          ),
        );
        continue;
      }
      writer.committed += count;
      const done = writer.waiters.filter((waiter) => waiter.upTo <= writer.committed);
      writer.waiters = writer.waiters.filter((waiter) => waiter.upTo > writer.committed);
      for (const waiter of done) waiter.resolve();
    }
    if (inserted.size > 0) this.#options.onCommitted([...inserted.keys()]);
  }

  #fail(sessionId: string, error: RequestError): void {
    const writer = this.#writers.get(sessionId);
    if (!writer) return;
    writer.failed ??= error;
    writer.records = [];
    for (const waiter of writer.waiters.splice(0)) waiter.reject(error);
  }
}
