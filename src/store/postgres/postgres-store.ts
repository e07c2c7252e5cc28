// Sessions in PostgreSQL (--store postgres://…), one session space for a fleet of hosts. PostgreSQL decides who owns
// each session: a host serves a session only while it holds its lease (owner, epoch, lease_until; renewed in the
// background), taking one bumps the epoch, and every append is conditional on it (group-commit.ts), so a host that
// lost a session, even after a pause of any length, never writes to it again. Hosts ask each other to let a session
// go over LISTEN/NOTIFY (notices.ts); a dead host's sessions are taken once their leases have expired (leases.ts). A
// fork is copied by the database (fork.ts); this file is the session operations and the wiring.
import { randomUUID } from "node:crypto";
import { rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import { RequestError, type ListSessionsResponse } from "@agentclientprotocol/sdk/unstable";
import pg from "pg";
import { ConfigError, redactedUrl } from "../../host-options.js";
import { hostError, notFound, sessionMoved, storeFault } from "../../request-errors.js";
import type { Logger } from "../../logger.js";
import type { WorkerLog, SettingsFrom } from "../../protocol/port.js";
import { isSessionId, LogError, type LogHeader } from "../../protocol/log/session-log.js";
import { decodeCursor, encodeCursor } from "../list-cursor.js";
import { listedMeta } from "../listing.js";
import { newSessionHeader } from "../new-header.js";
import type {
  FleetHost,
  ForkedSession,
  ForkRequest,
  ListOptions,
  NewSessionSettings,
  SessionLoss,
  SessionStore,
  SessionWriter,
} from "../session-store.js";
import { copyFork, storedHeader } from "./fork.js";
import { GroupCommit } from "./group-commit.js";
import { PostgresFeed } from "./feed.js";
import { Leases } from "./leases.js";
import { Notices, type Notice } from "./notices.js";
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

export class PostgresStore implements SessionStore {
  readonly label: string;
  readonly shared = true;
  readonly feed: PostgresFeed;
  readonly #options: PostgresStoreOptions;
  readonly #logger: Logger;
  readonly #pool: pg.Pool;
  readonly #commit: GroupCommit;
  readonly #notices: Notices;
  readonly #leases: Leases;
  #reachable = true;
  #stored: { count: number; at: number } | null = null;
  #hosts: { hosts: FleetHost[]; at: number } | null = null;
  #hostsRead: Promise<FleetHost[] | null> | null = null;
  #closed = false;

  /** Connects, migrates the schema and starts listening; throws ConfigError (one line naming the store) if it cannot. */
  static async open(options: PostgresStoreOptions, logger: Logger): Promise<PostgresStore> {
    const label = `postgres ${redactedUrl(options.url)}`;
    const store = new PostgresStore(options, label, logger);
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

  private constructor(options: PostgresStoreOptions, label: string, logger: Logger) {
    this.#options = options;
    this.label = label;
    this.#logger = logger.child({ store: label });
    this.#pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 4,
      connectionTimeoutMillis: 5000,
    });
    // A connection the server dropped (a restart) is replaced by the pool: no request waits on it, nothing to do here.
    this.#pool.on("error", (error) => this.#logger.warn({ err: error }, "a database connection broke"));
    this.#commit = new GroupCommit({
      pool: this.#pool,
      label,
      onLost: (sessionId) => this.#leases.lost(sessionId, "another host took it over"),
      onReachable: (reachable) => this.#setReachable(reachable),
      onCommitted: (sessions) =>
        void this.#notices
          .publish({ op: "appended", sessions, from: options.hostId })
          .catch((error: unknown) =>
            this.#logger.debug({ err: error }, "appended notice not sent: followers read the records at the next one"),
          ),
    });
    this.feed = new PostgresFeed(options.hostId, (text, values) => this.#query(text, values));
    this.#notices = new Notices(options.url, this.#logger, (notice) => {
      this.feed.notice(notice);
      void this.#leases.onNotice(notice);
    });
    this.#leases = new Leases({
      hostId: options.hostId,
      leaseMs: options.leaseMs,
      pool: this.#pool,
      commit: this.#commit,
      notices: this.#notices,
      logger: this.#logger,
      query: (text, values) => this.#query(text, values),
      absent: (sessionId) => this.#absent(sessionId),
      outputDir: (sessionId) => this.outputDir(sessionId),
      setReachable: (reachable) => this.#setReachable(reachable),
    });
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  /** Statements that committed appends so far (the bench counts one per round trip). */
  get commits(): number {
    return this.#commit.statements;
  }

  start(): void {
    this.#leases.start();
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
      this.#leases.hold(id, 1);
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
    return storedHeader(sessionId, row.header, this.label);
  }

  unknownSession(sessionId: string): RequestError {
    return notFound(sessionId, `unknown session: ${sessionId} (not in ${this.label})`);
  }

  /** A fork of the source up to its last ended turn, in one transaction (fork.ts). */
  async fork(request: ForkRequest): Promise<ForkedSession> {
    const { sourceId } = request;
    if (!isSessionId(sourceId)) throw this.unknownSession(sourceId);
    const client = await this.#connect();
    try {
      const forked = await copyFork(client, request, {
        hostId: this.#options.hostId,
        leaseMs: this.#options.leaseMs,
        label: this.label,
        absent: (sessionId) => this.#absent(sessionId),
      });
      this.#leases.hold(forked.sessionId, 1);
      this.#stored = null;
      return forked;
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
  lock(sessionId: string, onWait?: () => void): Promise<void> {
    return this.#leases.lock(sessionId, onWait);
  }

  unlock(sessionId: string): Promise<void> {
    return this.#leases.unlock(sessionId);
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
      this.#leases.drop(sessionId);
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

  /**
   * `_host/stats` asks for it with every answer: read at most every 5 s, in the background once read (the answer
   * never waits for a store that is slow to answer; it says what was read last).
   */
  fleetHosts(): Promise<FleetHost[] | null> {
    if (!this.#hostsRead && (!this.#hosts || performance.now() - this.#hosts.at >= 5_000))
      this.#hostsRead = this.#readFleetHosts().finally(() => (this.#hostsRead = null));
    return this.#hosts ? Promise.resolve(this.#hosts.hosts) : this.#hostsRead!;
  }

  async #readFleetHosts(): Promise<FleetHost[] | null> {
    try {
      const { rows } = await this.#pool.query<{ owner: string; sessions: string }>(
        `SELECT owner, count(*) AS sessions FROM ash_sessions
         WHERE owner IS NOT NULL AND lease_until > clock_timestamp() GROUP BY owner ORDER BY owner`,
      );
      const hosts = rows.map((row) => ({ hostId: row.owner, sessions: Number(row.sessions) }));
      this.#hosts = { hosts, at: performance.now() };
      return hosts;
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
      tenant: string | null;
      parent_id: string | null;
      parent_depth: number | null;
      fork_of: string | null;
      fork_turns: number | null;
    }>(
      `SELECT id::text, cwd, title, updated_ms, turns, created_ms, archived, tenant, parent_id::text, parent_depth, fork_of::text, fork_turns FROM ash_sessions
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
        tenant: row.tenant,
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
    const epoch = this.#leases.epoch(sessionId);
    if (epoch === undefined) throw sessionMoved(sessionId, "this host holds no lease on it");
    const { rows } = await this.#query<{ header: string; snapshot: string | null; snapshot_seq: string }>(
      "SELECT header, snapshot, snapshot_seq FROM ash_sessions WHERE id = $1 AND owner = $2 AND epoch = $3",
      [sessionId, this.#options.hostId, epoch],
    );
    const row = rows[0];
    if (!row) {
      this.#leases.lost(sessionId, "another host took it over");
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
    this.#commit.open(sessionId, epoch, firstSeq + records.rows.length);
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
    this.#leases.onLoss(listener);
  }

  onTakeover(handler: (sessionId: string) => Promise<string | null>): void {
    this.#leases.onTakeover(handler);
  }

  async flushed(): Promise<void> {
    await this.#commit.drained();
  }

  /** Gives up every lease this host still holds (others take its sessions at once) and disconnects. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#leases.releaseAll();
    await this.#notices.stop();
    await this.#pool.end().catch(() => {});
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
    if (reachable) this.#logger.info("the store is reachable again");
    else this.#logger.warn("the store is unreachable: /healthz answers 503 until it is back");
  }
}

/** An error of the connection rather than of the statement (a SQLSTATE says the server answered). */
function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code) || code.startsWith("08") || code.startsWith("57P");
}
