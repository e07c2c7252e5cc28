// Sessions in PostgreSQL (--store postgres://…), one session space for a fleet of hosts. PostgreSQL decides who owns
// each session: a host serves a session only while it holds its lease (owner, epoch, lease_until; renewed in the
// background), taking one bumps the epoch, and every append is conditional on it (group-commit.ts), so a host that
// lost a session, even after a pause of any length, never writes to it again. Hosts ask each other to let a session
// go over LISTEN/NOTIFY (notices.ts); a dead host's sessions are taken once their leases have expired.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { RequestError, type ListSessionsResponse } from "@agentclientprotocol/sdk/unstable";
import pg from "pg";
import { ConfigError } from "../../host-options.js";
import { hostError, notFound, sessionMoved, storeFault } from "../../request-errors.js";
import type { Logger } from "../../logger.js";
import type { WorkerLog, SettingsFrom } from "../../protocol/port.js";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  isSessionId,
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  LogError,
  parseHeaderLine,
  type LogHeader,
} from "../../protocol/session-log.js";
import { snapshotTailSettings } from "../../protocol/log/snapshot.js";
import { entryTypeOf, forkPoint, type ForkPointState } from "../fork-point.js";
import { decodeCursor, encodeCursor } from "../list-cursor.js";
import { listedMeta } from "../listing.js";
import { newSessionHeader } from "../new-header.js";
import type {
  ForkedSession,
  ForkRequest,
  ListOptions,
  NewSessionSettings,
  SessionLoss,
  SessionStore,
  SessionWriter,
} from "../session-store.js";
import { GroupCommit } from "./group-commit.js";
import { Notices, type Notice } from "./notices.js";
import { uploadOutputs } from "./outputs.js";
import { migrate } from "./schema.js";

export interface PostgresStoreOptions {
  url: string;
  /** This host's name in leases. */
  hostId: string;
  leaseMs: number;
  /** Post a snapshot once a session's records since the last one take this many bytes. */
  compactBytes: number;
  /** Where the spawner keeps sessions' full command outputs on this host. */
  outputRoot: string;
  /** Connections this host keeps to the database (default 4). */
  poolSize?: number;
}

interface Held {
  epoch: number;
}

/** How much of a snapshot's end a fork reads for its settings (they follow the conversation, and are small). */
const SNAPSHOT_END_CHARS = 1024 * 1024;

/** How long a host asked to let a session go may take to answer before the asker looks at the lease again. */
const TAKEOVER_ANSWER_MS = 5000;

export class PostgresStore implements SessionStore {
  readonly label: string;
  readonly shared = true;
  readonly #options: PostgresStoreOptions;
  readonly #log: Logger;
  readonly #pool: pg.Pool;
  readonly #commit: GroupCommit;
  readonly #notices: Notices;
  readonly #held = new Map<string, Held>();
  /** Sessions a lock() of this host is taking right now. */
  readonly #taking = new Set<string>();
  readonly #lossListeners: Array<(loss: SessionLoss) => void> = [];
  #takeover: (sessionId: string) => Promise<string | null> = async () => "this host cannot let sessions go";
  #reachable = true;
  #renewTimer: NodeJS.Timeout | null = null;
  #stored: { count: number; at: number } | null = null;
  #closed = false;

  /** Connects, migrates the schema and starts listening; throws ConfigError (one line naming the store) if it cannot. */
  static async open(options: PostgresStoreOptions, log: Logger): Promise<PostgresStore> {
    const label = `postgres ${redact(options.url)}`;
    const store = new PostgresStore(options, label, log);
    try {
      await migrate(store.#pool);
      await store.#notices.start(options.hostId);
    } catch (error) {
      await store.#pool.end().catch(() => {});
      await store.#notices.stop();
      throw new ConfigError(`--store ${label}: ${(error as Error).message}`);
    }
    return store;
  }

  private constructor(options: PostgresStoreOptions, label: string, log: Logger) {
    this.#options = options;
    this.label = label;
    this.#log = log.child({ store: label });
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: 5000,
    });
    // A connection the server dropped (a restart) is replaced by the pool: no request waits on it, nothing to do here.
    this.#pool.on("error", (error) => this.#log.warn({ err: error }, "a database connection broke"));
    this.#commit = new GroupCommit({
      pool: this.#pool,
      label,
      onLost: (sessionId) => this.#lost(sessionId, "another host took it over"),
      onReachable: (reachable) => this.#setReachable(reachable),
    });
    this.#notices = new Notices(options.url, this.#log, (notice) => void this.#onNotice(notice));
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** Statements that committed appends so far (the bench counts one per round trip). */
  get commits(): number {
    return this.#commit.statements;
  }

  start(): void {
    const every = Math.max(100, Math.floor(this.#options.leaseMs / 3));
    this.#renewTimer = setInterval(() => void this.#renew(), every);
    this.#renewTimer.unref();
  }

  async create(settings: NewSessionSettings, hostVersion: string, tenant: string | null): Promise<string> {
    for (;;) {
      const id = randomUUID();
      const header = newSessionHeader(id, settings, hostVersion, tenant);
      const { rowCount } = await this.#query(
        `INSERT INTO ash_sessions (id, tenant, cwd, header, created_ms, updated_ms, owner, epoch, lease_until, parent_id, parent_depth)
         SELECT $1, $2, $3, $4, $5, $5, $6, 1, clock_timestamp() + $7 * interval '1 millisecond', $8, $9
         WHERE NOT EXISTS (SELECT 1 FROM ash_tombstones WHERE id = $1)
         ON CONFLICT DO NOTHING`,
        [
          id,
          tenant,
          resolve(settings.cwd),
          JSON.stringify(header),
          Date.parse(header.createdAt),
          this.#options.hostId,
          this.#options.leaseMs,
          settings.parent?.sessionId ?? null,
          settings.parent?.depth ?? null,
        ],
      );
      if (rowCount !== 1) continue;
      this.#held.set(id, { epoch: 1 });
      return id;
    }
  }

  async readHeader(sessionId: string): Promise<LogHeader> {
    if (!isSessionId(sessionId)) throw notFound(sessionId, `unknown session: ${sessionId}`);
    const { rows } = await this.#query<{ header: string }>("SELECT header FROM ash_sessions WHERE id = $1", [
      sessionId,
    ]);
    const row = rows[0];
    if (!row) throw await this.#absent(sessionId);
    return this.#storedHeader(sessionId, row.header);
  }

  unknownSession(sessionId: string): RequestError {
    return notFound(sessionId, `unknown session: ${sessionId} (not in ${this.label})`);
  }

  /**
   * Copies the source's rows in one transaction (a consistent view of them: REPEATABLE READ): its snapshot, the
   * records before it that session/load replays and every record after it up to its last ended turn, under a new row
   * whose header names the source and the fork point. Where the fork point lies and the source's settings there are
   * read by the database from the records' first characters (as every entry is written, {"type":"…"); only the few
   * entries that set something, and the end of the snapshot, come to this thread.
   */
  async fork(request: ForkRequest): Promise<ForkedSession> {
    const { sourceId } = request;
    if (!isSessionId(sourceId)) throw this.unknownSession(sourceId);
    const client = await this.#connect();
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      const { rows } = await client.query<{
        header: string;
        snapshot_seq: string;
        snapshot_end: string | null;
        snapshot_bytes: string | null;
      }>(
        "SELECT header, snapshot_seq, right(snapshot, $2) AS snapshot_end, octet_length(snapshot) AS snapshot_bytes FROM ash_sessions WHERE id = $1",
        [sourceId, SNAPSHOT_END_CHARS],
      );
      const row = rows[0];
      if (!row) {
        await client.query("ROLLBACK");
        throw await this.#absent(sourceId);
      }
      const source = this.#storedHeader(sourceId, row.header);
      const snapshotSeq = Number(row.snapshot_seq);
      const base =
        row.snapshot_end === null
          ? { mode: source.mode, model: source.model, systemPrompt: source.systemPrompt ?? null, turns: 0, title: null }
          : await this.#snapshotBase(client, sourceId, row.snapshot_end);
      const { state, forkSeq } = await this.#forkPoint(client, sourceId, snapshotSeq, base);
      const id = randomUUID();
      const createdAt = new Date().toISOString();
      const forkOf = { sessionId: sourceId, turns: state.turns };
      const systemPrompt = request.systemPrompt ?? state.systemPrompt;
      const header: LogHeader = {
        format: LOG_FORMAT,
        formatVersion: row.snapshot_end === null ? LOG_FORMAT_VERSION : COMPACTED_LOG_FORMAT_VERSION,
        sessionId: id,
        cwd: request.cwd,
        createdAt,
        mode: state.mode,
        model: state.model,
        hostVersion: request.hostVersion,
        ...(request.tenant ? { tenant: request.tenant } : {}),
        ...(systemPrompt ? { systemPrompt } : {}),
        forkOf,
      };
      const headerText = JSON.stringify(header);
      await client.query(
        `INSERT INTO ash_sessions (id, tenant, cwd, header, created_ms, updated_ms, title, turns, snapshot, snapshot_seq, owner, epoch, lease_until, fork_of, fork_turns)
         SELECT $1, $2, $3, $4, $5, $5, $6, $7, snapshot, snapshot_seq, $8, 1, clock_timestamp() + $9 * interval '1 millisecond', $10, $7
         FROM ash_sessions WHERE id = $10`,
        [
          id,
          request.tenant,
          resolve(request.cwd),
          headerText,
          Date.parse(createdAt),
          state.title,
          state.turns,
          this.#options.hostId,
          this.#options.leaseMs,
          sourceId,
        ],
      );
      const copied = await client.query<{ bytes: string }>(
        `WITH copied AS (
           INSERT INTO ash_records (session_id, seq, epoch, replayable, entry)
           SELECT $1, seq, 1, replayable, entry FROM ash_records
           WHERE session_id = $2 AND ((seq < $3 AND replayable) OR (seq >= $3 AND seq < $4))
           RETURNING octet_length(entry) AS bytes
         )
         SELECT COALESCE(sum(bytes), 0) AS bytes FROM copied`,
        [id, sourceId, snapshotSeq, forkSeq],
      );
      await client.query("COMMIT");
      this.#held.set(id, { epoch: 1 });
      this.#stored = null;
      return {
        sessionId: id,
        forkOf,
        mode: state.mode,
        model: state.model,
        systemPrompt,
        title: state.title,
        bytesWritten:
          Buffer.byteLength(headerText) + Number(row.snapshot_bytes ?? 0) + Number(copied.rows[0]?.bytes ?? 0),
      };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      if (error instanceof RequestError) throw error;
      if (error instanceof LogError)
        throw hostError("LOG_UNUSABLE", `the stored log of session ${sourceId} cannot be forked: ${error.message}`, {
          sessionId: sourceId,
          store: this.label,
        });
      throw this.#fault(error);
    } finally {
      client.release();
    }
  }

  /**
   * The fork point among the records after the snapshot (after the last turn_end, unless a turn_start follows it), and
   * the state there. Records not written as entries are ({"type":"… first) are read one by one instead.
   */
  async #forkPoint(
    client: pg.PoolClient,
    sessionId: string,
    snapshotSeq: number,
    base: ForkPointState,
  ): Promise<{ state: ForkPointState; forkSeq: number }> {
    const shape = await client.query<{
      last_seq: string | null;
      last_end: string | null;
      last_start: string | null;
      untyped: string;
    }>(
      `SELECT max(seq) AS last_seq,
              max(seq) FILTER (WHERE entry LIKE '{"type":"turn_end"%') AS last_end,
              max(seq) FILTER (WHERE entry LIKE '{"type":"turn_start"%') AS last_start,
              count(*) FILTER (WHERE entry NOT LIKE '{"type":"%') AS untyped
       FROM ash_records WHERE session_id = $1 AND seq >= $2`,
      [sessionId, snapshotSeq],
    );
    const { last_seq, last_end, last_start, untyped } = shape.rows[0]!;
    if (Number(untyped) > 0) {
      const tail = await client.query<{ entry: string }>(
        "SELECT entry FROM ash_records WHERE session_id = $1 AND seq >= $2 ORDER BY seq",
        [sessionId, snapshotSeq],
      );
      const lines = tail.rows.map(({ entry }) => ({
        type: entryTypeOf(entry.slice(0, 40), () => JSON.parse(entry)),
        entry: () => JSON.parse(entry) as Record<string, unknown>,
      }));
      const { state, count } = forkPoint(lines, base, "whole");
      return { state, forkSeq: snapshotSeq + count };
    }
    const open = last_start !== null && (last_end === null || Number(last_start) > Number(last_end));
    const forkSeq = open ? Number(last_start) : last_seq === null ? snapshotSeq : Number(last_seq) + 1;
    const { rows } = await client.query<{
      ends: string;
      mode: string | null;
      model: string | null;
      system_prompt: string | null;
      first_prompt: string | null;
    }>(
      `SELECT
         (SELECT count(*) FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"turn_end"%') AS ends,
         (SELECT entry FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"mode"%' ORDER BY seq DESC LIMIT 1) AS mode,
         (SELECT entry FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"model"%' ORDER BY seq DESC LIMIT 1) AS model,
         (SELECT entry FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"system_prompt"%' ORDER BY seq DESC LIMIT 1) AS system_prompt,
         CASE WHEN $4 THEN (SELECT entry FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"user_message"%' ORDER BY seq LIMIT 1) END AS first_prompt`,
      [sessionId, snapshotSeq, forkSeq, base.title === null],
    );
    const found = rows[0]!;
    const settings = [found.mode, found.model, found.system_prompt, found.first_prompt].flatMap((entry) =>
      entry === null
        ? []
        : [
            {
              type: entryTypeOf(entry.slice(0, 40), () => JSON.parse(entry)),
              entry: () => JSON.parse(entry) as Record<string, unknown>,
            },
          ],
    );
    const { state } = forkPoint(settings, { ...base, turns: base.turns + Number(found.ends) }, "whole");
    return { state, forkSeq };
  }

  /** The settings a snapshot holds, from its end (the whole snapshot when its settings are longer than that end). */
  async #snapshotBase(client: pg.PoolClient, sessionId: string, end: string): Promise<ForkPointState> {
    const settings =
      snapshotTailSettings(end) ??
      snapshotTailSettings(
        (await client.query<{ snapshot: string }>("SELECT snapshot FROM ash_sessions WHERE id = $1", [sessionId]))
          .rows[0]!.snapshot,
      );
    if (!settings) throw new LogError("its snapshot is corrupt: it has no history");
    return settings;
  }

  #storedHeader(sessionId: string, text: string): LogHeader {
    try {
      return parseHeaderLine(text, sessionId);
    } catch (error) {
      if (error instanceof LogError)
        throw hostError("LOG_UNUSABLE", `the stored header of session ${sessionId} cannot be used: ${error.message}`, {
          sessionId,
          store: this.label,
        });
      throw error;
    }
  }

  async title(sessionId: string): Promise<string | null> {
    if (!isSessionId(sessionId)) return null;
    const { rows } = await this.#query<{ title: string | null }>("SELECT title FROM ash_sessions WHERE id = $1", [
      sessionId,
    ]);
    return rows[0]?.title ?? null;
  }

  /** A title a client set: the first prompt's (log_summary keeps a title there is) never replaces it. */
  async setTitle(sessionId: string, title: string): Promise<void> {
    await this.#update(sessionId, "UPDATE ash_sessions SET title = $2, titled = true WHERE id = $1", [
      sessionId,
      title,
    ]);
  }

  async setArchived(sessionId: string, archived: boolean): Promise<void> {
    await this.#update(sessionId, "UPDATE ash_sessions SET archived = $2 WHERE id = $1", [sessionId, archived]);
  }

  async #update(sessionId: string, text: string, values: unknown[]): Promise<void> {
    if (!isSessionId(sessionId)) throw this.unknownSession(sessionId);
    const { rowCount } = await this.#query(text, values);
    if (rowCount !== 1) throw await this.#absent(sessionId);
    this.#stored = null;
  }

  /**
   * Takes the session's lease (bumping its epoch, which fences out any earlier holder). A live host that holds it is
   * asked to let it go (it refuses while a prompt is in flight there); a dead one's lease is waited out.
   */
  async lock(sessionId: string, onWait?: () => void): Promise<void> {
    if (this.#held.has(sessionId) || this.#taking.has(sessionId)) {
      throw hostError("SESSION_BUSY", `session ${sessionId} is being opened by another request in this host`, {
        sessionId,
      });
    }
    this.#taking.add(sessionId);
    try {
      const deadline = performance.now() + this.#options.leaseMs + TAKEOVER_ANSWER_MS;
      for (;;) {
        const taken = await this.#take(sessionId);
        if (taken.epoch !== null) {
          this.#held.set(sessionId, { epoch: taken.epoch });
          return;
        }
        if (performance.now() > deadline)
          throw hostError(
            "OWNER_UNREACHABLE",
            `session ${sessionId} cannot be opened: host ${taken.owner} holds it and neither answers nor lets its lease expire`,
            { sessionId },
          );
        const expires = performance.now() + taken.remainingMs;
        const answer = await this.#notices.ask(
          taken.owner,
          sessionId,
          Math.min(TAKEOVER_ANSWER_MS, taken.remainingMs + 50),
        );
        if (answer.kind === "refused")
          throw hostError("HELD_ELSEWHERE", answer.reason, { sessionId, host: taken.owner });
        // Released (take it now), or no answer: the holder may be dead, and its lease is looked at again once it has
        // run out (the wait for an answer counts towards it: a dead holder costs its lease, not its lease twice).
        if (answer.kind === "timeout") {
          onWait?.();
          onWait = undefined;
          await sleep(Math.max(0, Math.min(expires, deadline) - performance.now()));
        }
      }
    } finally {
      this.#taking.delete(sessionId);
    }
  }

  async unlock(sessionId: string): Promise<void> {
    const held = this.#held.get(sessionId);
    if (!held) return;
    this.#held.delete(sessionId);
    // What the session's last worker appended is committed before another host may read it.
    await this.#commit.committed(sessionId).catch(() => {});
    this.#commit.close(sessionId, sessionMoved(sessionId, "this host let it go"));
    try {
      // Its commands' full output goes with it (the spawner has ended them: the session was closed first).
      await uploadOutputs(this.#pool, sessionId, this.outputDir(sessionId));
      await this.#query(
        "UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND epoch = $3",
        [sessionId, this.#options.hostId, held.epoch],
      );
      await this.#notices.publish({ op: "released", session: sessionId, from: this.#options.hostId });
    } catch (error) {
      this.#log.warn({ sessionId, err: error }, "session lease not released: it expires by itself");
    }
  }

  /** Deletes it for every host: its row fenced and removed, a tombstone left, its holder told (it drops it). */
  async remove(sessionId: string): Promise<boolean> {
    if (!isSessionId(sessionId)) return false;
    const client = await this.#connect();
    try {
      await client.query("BEGIN");
      // FOR UPDATE waits for appends on their way (they hold the row FOR SHARE), then none can follow.
      const { rows } = await client.query<{ owner: string | null }>(
        "SELECT owner FROM ash_sessions WHERE id = $1 FOR UPDATE",
        [sessionId],
      );
      if (rows.length === 0) {
        await client.query("COMMIT");
        return false;
      }
      await client.query("INSERT INTO ash_tombstones (id) VALUES ($1) ON CONFLICT DO NOTHING", [sessionId]);
      await client.query("DELETE FROM ash_sessions WHERE id = $1", [sessionId]);
      await client.query("SELECT pg_notify($1, $2)", [
        Notices.CHANNEL,
        JSON.stringify({ op: "deleted", session: sessionId, from: this.#options.hostId } satisfies Notice),
      ]);
      await client.query("COMMIT");
      this.#held.delete(sessionId);
      this.#commit.close(sessionId, sessionMoved(sessionId, "it was deleted"));
      await rm(this.outputDir(sessionId), { recursive: true, force: true });
      return true;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw this.#fault(error);
    } finally {
      client.release();
    }
  }

  touched(): void {
    this.#stored = null;
  }

  async storedSessions(): Promise<number | null> {
    if (this.#stored && performance.now() - this.#stored.at < 10_000) return this.#stored.count;
    try {
      const { rows } = await this.#pool.query<{ count: string }>("SELECT count(*) FROM ash_sessions");
      this.#stored = { count: Number(rows[0]?.count ?? 0), at: performance.now() };
      return this.#stored.count;
    } catch {
      return null;
    }
  }

  async list(options: ListOptions): Promise<ListSessionsResponse> {
    const after = options.cursor ? decodeCursor(options.cursor) : null;
    const { rows } = await this.#query<{
      id: string;
      cwd: string;
      title: string | null;
      updated_ms: string;
      turns: number;
      created_ms: string;
      archived: boolean;
      parent_id: string | null;
      parent_depth: number | null;
      fork_of: string | null;
      fork_turns: number | null;
    }>(
      `SELECT id::text, cwd, title, updated_ms, turns, created_ms, archived, parent_id::text, parent_depth, fork_of::text, fork_turns FROM ash_sessions
       WHERE ($1::text IS NULL OR tenant = $1) AND ($2::text IS NULL OR cwd = $2)
         AND ($3::bigint IS NULL OR (updated_ms, id) < ($3, $4::uuid))
         AND ($6::text = 'include' OR archived = ($6::text = 'only'))
       ORDER BY updated_ms DESC, id DESC LIMIT $5`,
      [
        options.tenant,
        options.cwd ? resolve(options.cwd) : null,
        after ? Date.parse(after[0]) : null,
        after ? after[1] : null,
        options.pageSize + 1,
        options.archived,
      ],
    );
    const page = rows.slice(0, options.pageSize).map((row) => ({
      sessionId: row.id,
      cwd: row.cwd,
      title: row.title,
      updatedAt: new Date(Number(row.updated_ms)).toISOString(),
      archived: row.archived,
      _meta: listedMeta({
        turns: row.turns,
        createdAt: new Date(Number(row.created_ms)).toISOString(),
        parent:
          row.parent_id !== null && row.parent_depth !== null
            ? { sessionId: row.parent_id, depth: row.parent_depth }
            : null,
        forkOf:
          row.fork_of !== null && row.fork_turns !== null ? { sessionId: row.fork_of, turns: row.fork_turns } : null,
      }),
    }));
    const last = page.at(-1);
    return {
      sessions: page,
      ...(rows.length > options.pageSize && last ? { nextCursor: encodeCursor(last.updatedAt, last.sessionId) } : {}),
    };
  }

  async workerLog(sessionId: string, settingsFrom: SettingsFrom): Promise<WorkerLog> {
    // A previous worker's appends still on their way land first: the new worker starts after them.
    await this.#commit.committed(sessionId).catch(() => {});
    const held = this.#held.get(sessionId);
    if (!held) throw sessionMoved(sessionId, "this host holds no lease on it");
    const { rows } = await this.#query<{ header: string; snapshot: string | null; snapshot_seq: string }>(
      "SELECT header, snapshot, snapshot_seq FROM ash_sessions WHERE id = $1 AND owner = $2 AND epoch = $3",
      [sessionId, this.#options.hostId, held.epoch],
    );
    const row = rows[0];
    if (!row) {
      this.#lost(sessionId, "another host took it over");
      throw sessionMoved(sessionId, "another host took it over (its lease moved on)");
    }
    const firstSeq = Number(row.snapshot_seq);
    const records = await this.#query<{ seq: string; entry: string }>(
      "SELECT seq, entry FROM ash_records WHERE session_id = $1 AND seq >= $2 ORDER BY seq",
      [sessionId, firstSeq],
    );
    records.rows.forEach((record, index) => {
      if (Number(record.seq) !== firstSeq + index)
        throw hostError("LOG_UNUSABLE", `the stored log of session ${sessionId} has no record ${firstSeq + index}`, {
          sessionId,
          store: this.label,
        });
    });
    this.#commit.open(sessionId, held.epoch, firstSeq + records.rows.length);
    return {
      kind: "records",
      settingsFrom,
      header: row.header,
      snapshot: row.snapshot,
      records: records.rows.map((record) => record.entry),
      firstSeq,
      compactBytes: this.#options.compactBytes,
    };
  }

  outputDir(sessionId: string): string {
    return join(this.#options.outputRoot, `${sessionId}.out`);
  }

  writer(sessionId: string): SessionWriter {
    const commit = this.#commit;
    return {
      append: (from, lines, replayable) => commit.append(sessionId, from, lines, replayable),
      summary: (turns, title) => commit.summary(sessionId, turns, title),
      snapshot: (seq, snapshot) => commit.snapshot(sessionId, seq, snapshot),
      committed: () => commit.committed(sessionId),
      replayedBefore: async (seq) => {
        const { rows } = await this.#query<{ entry: string }>(
          "SELECT entry FROM ash_records WHERE session_id = $1 AND seq < $2 AND replayable ORDER BY seq",
          [sessionId, seq],
        );
        return rows.map((row) => row.entry);
      },
    };
  }

  onLoss(listener: (loss: SessionLoss) => void): void {
    this.#lossListeners.push(listener);
  }

  onTakeover(handler: (sessionId: string) => Promise<string | null>): void {
    this.#takeover = handler;
  }

  async flushed(): Promise<void> {
    await this.#commit.drained();
  }

  /** Gives up every lease this host still holds (others take its sessions at once) and disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    await this.#commit.drained();
    try {
      await this.#pool.query("UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE owner = $1", [
        this.#options.hostId,
      ]);
    } catch (error) {
      this.#log.warn({ err: error }, "leases not released at exit: they expire by themselves");
    }
    this.#held.clear();
    await this.#notices.stop();
    await this.#pool.end().catch(() => {});
  }

  /** The lease if it is free, expired or this host's; else who holds it and for how long yet. */
  async #take(
    sessionId: string,
  ): Promise<
    { epoch: number; owner: string; remainingMs: number } | { epoch: null; owner: string; remainingMs: number }
  > {
    const me = this.#options.hostId;
    const { rows } = await this.#query<{ epoch: string }>(
      `UPDATE ash_sessions SET owner = $2, epoch = epoch + 1, lease_until = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE id = $1 AND (owner IS NULL OR owner = $2 OR lease_until < clock_timestamp()) RETURNING epoch`,
      [sessionId, me, this.#options.leaseMs],
    );
    if (rows[0]) return { epoch: Number(rows[0].epoch), owner: me, remainingMs: 0 };
    const held = await this.#query<{ owner: string; remaining_ms: number }>(
      "SELECT owner, GREATEST(0, extract(epoch FROM lease_until - clock_timestamp()) * 1000)::float8 AS remaining_ms FROM ash_sessions WHERE id = $1",
      [sessionId],
    );
    const row = held.rows[0];
    if (!row) throw await this.#absent(sessionId);
    return { epoch: null, owner: row.owner, remainingMs: row.remaining_ms };
  }

  /** Renews every lease this host holds; one it no longer has is lost (taken over while this host was away). */
  async #renew(): Promise<void> {
    if (this.#closed) return;
    const ids = [...this.#held.keys()];
    try {
      if (ids.length === 0) {
        await this.#pool.query("SELECT 1");
        this.#setReachable(true);
        return;
      }
      const { rows } = await this.#pool.query<{ id: string; epoch: string }>(
        `UPDATE ash_sessions SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'
         WHERE owner = $1 AND id = ANY($3::uuid[]) RETURNING id::text, epoch`,
        [this.#options.hostId, this.#options.leaseMs, ids],
      );
      this.#setReachable(true);
      const renewed = new Map(rows.map((row) => [row.id, Number(row.epoch)]));
      for (const id of ids) {
        const held = this.#held.get(id);
        if (held && renewed.get(id) !== held.epoch)
          this.#lost(id, "another host took it over while this host could not renew its lease");
      }
    } catch (error) {
      this.#setReachable(false);
      this.#log.warn({ err: error }, "leases not renewed: the store is unreachable");
    }
  }

  async #onNotice(notice: Notice): Promise<void> {
    const me = this.#options.hostId;
    if (notice.from === me) return;
    if (notice.op === "deleted") {
      if (this.#held.has(notice.session)) this.#lost(notice.session, `it was deleted through host ${notice.from}`);
      await rm(this.outputDir(notice.session), { recursive: true, force: true });
      return;
    }
    if (notice.op !== "release" || notice.owner !== me) return;
    let refusal: string | null;
    try {
      // Not held here (an earlier incarnation of this host id had it): let it go in the store.
      refusal = this.#held.has(notice.session) ? await this.#takeover(notice.session) : null;
      if (refusal === null && !this.#held.has(notice.session)) {
        await this.#query("UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2", [
          notice.session,
          me,
        ]);
      }
    } catch (error) {
      refusal = `host ${me} could not let it go: ${(error as Error).message}`;
    }
    await this.#notices
      .publish(
        refusal === null
          ? { op: "released", session: notice.session, from: me, to: notice.from, request: notice.request }
          : {
              op: "refused",
              session: notice.session,
              from: me,
              to: notice.from,
              request: notice.request,
              reason: refusal,
            },
      )
      .catch((error: unknown) =>
        this.#log.warn({ err: error, sessionId: notice.session }, "could not answer a takeover request"),
      );
  }

  #lost(sessionId: string, reason: string): void {
    if (!this.#held.delete(sessionId)) return;
    this.#commit.close(sessionId, sessionMoved(sessionId, reason));
    this.#log.warn({ sessionId, reason }, "session lost: this host no longer serves it");
    for (const listener of this.#lossListeners) listener({ sessionId, reason });
  }

  /** -32002 for an id never stored or deleted. */
  async #absent(sessionId: string): Promise<RequestError> {
    const { rows } = await this.#query("SELECT 1 FROM ash_tombstones WHERE id = $1", [sessionId]);
    return rows.length > 0 ? notFound(sessionId, `session ${sessionId} was deleted`) : this.unknownSession(sessionId);
  }

  async #query<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<Row>> {
    try {
      const result = await this.#pool.query<Row>(text, values);
      this.#setReachable(true);
      return result;
    } catch (error) {
      throw this.#fault(error);
    }
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      throw this.#fault(error);
    }
  }

  #fault(error: unknown): RequestError {
    if (isConnectionError(error)) this.#setReachable(false);
    return storeFault(this.label, (error as Error).message);
  }

  #setReachable(reachable: boolean): void {
    if (reachable === this.#reachable) return;
    this.#reachable = reachable;
    if (reachable) this.#log.info("the store is reachable again");
    else this.#log.warn("the store is unreachable: /healthz answers 503 until it is back");
  }
}

/** The URL without its password, for logs and errors. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ":***@");
  }
}

/** An error of the connection rather than of the statement (a SQLSTATE says the server answered). */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith("08") || code.startsWith("57P");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
