// Following a session another host of the fleet serves: who holds it (a live lease), its committed records that
// session/load shows, and a call each time any host commits more of them (the "appended" notice every group commit
// sends).
import type pg from "pg";
import type { SessionFeed, ShownRecord } from "../session-store.js";
import type { Notice } from "./notices.js";

export class PostgresFeed implements SessionFeed {
  readonly #hostId: string;
  readonly #query: <Row extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>;
  readonly #watchers = new Map<string, Set<() => void>>();

  constructor(
    hostId: string,
    query: <Row extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<pg.QueryResult<Row>>,
  ) {
    this.#hostId = hostId;
    this.#query = query;
  }

  async holder(sessionId: string): Promise<string | null> {
    const { rows } = await this.#query<{ owner: string }>(
      "SELECT owner FROM ash_sessions WHERE id = $1 AND owner IS NOT NULL AND owner <> $2 AND lease_until > clock_timestamp()",
      [sessionId, this.#hostId],
    );
    return rows[0]?.owner ?? null;
  }

  async shownAfter(sessionId: string, afterSeq: number): Promise<ShownRecord[]> {
    const { rows } = await this.#query<{ seq: string; entry: string }>(
      "SELECT seq, entry FROM ash_records WHERE session_id = $1 AND seq > $2 AND replayable ORDER BY seq",
      [sessionId, afterSeq],
    );
    return rows.map((row) => ({ seq: Number(row.seq), entry: row.entry }));
  }

  watch(sessionId: string, onCommitted: () => void): () => void {
    let watchers = this.#watchers.get(sessionId);
    if (!watchers) this.#watchers.set(sessionId, (watchers = new Set()));
    watchers.add(onCommitted);
    return () => {
      watchers.delete(onCommitted);
      if (watchers.size === 0) this.#watchers.delete(sessionId);
    };
  }

  /** Every notice of the store's channel (this host's own commits too: its followers read them alike). */
  notice(notice: Notice): void {
    if (notice.op !== "appended" || this.#watchers.size === 0) return;
    for (const sessionId of notice.sessions) for (const watcher of this.#watchers.get(sessionId) ?? []) watcher();
  }
}
