// The leases of PostgreSQL sessions: which this host holds (and at which epoch), taking one (asking its holder to let
// it go, or waiting a silent holder's lease out), renewing them in the background, letting one go, answering other
// hosts' requests to let one go, losing one, and giving every one up at close.
import { rm } from "node:fs/promises";
import type { RequestError } from "@agentclientprotocol/sdk/unstable";
import type pg from "pg";
import type { Logger } from "../../logger.js";
import { hostError, sessionMoved } from "../../request-errors.js";
import type { SessionLoss } from "../session-store.js";
import type { GroupCommit } from "./group-commit.js";
import type { Notice, Notices } from "./notices.js";
import { uploadOutputs } from "./outputs.js";

/** How long a host asked to let a session go may take to answer before the asker looks at the lease again. */
const TAKEOVER_ANSWER_MS = 5000;

/** What the leases need of the store that holds them. */
export interface LeaseStore {
  /** This host's name in leases. */
  hostId: string;
  leaseMs: number;
  pool: pg.Pool;
  commit: GroupCommit;
  notices: Notices;
  logger: Logger;
  /** A statement through the store (a failure becomes its fault, the store's reachability follows). */
  query<Row extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<Row>>;
  /** The error for a session not stored (never, or deleted). */
  absent(sessionId: string): Promise<RequestError>;
  outputDir(sessionId: string): string;
  setReachable(reachable: boolean): void;
}

interface Held {
  epoch: number;
}

export class Leases {
  readonly #store: LeaseStore;
  readonly #held = new Map<string, Held>();
  /** Sessions a lock() of this host is taking right now. */
  readonly #taking = new Set<string>();
  readonly #lossListeners: Array<(loss: SessionLoss) => void> = [];
  #takeover: (sessionId: string) => Promise<string | null> = async () => "this host cannot let sessions go";
  #renewTimer: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(store: LeaseStore) {
    this.#store = store;
  }

  /** Renews the leases held, a third of a lease apart. */
  start(): void {
    const every = Math.max(100, Math.floor(this.#store.leaseMs / 3));
    this.#renewTimer = setInterval(() => void this.#renew(), every);
    this.#renewTimer.unref();
  }

  /** The epoch of the session's lease, when this host holds it. */
  epoch(sessionId: string): number | undefined {
    return this.#held.get(sessionId)?.epoch;
  }

  /** A lease this host took in the statement that stored the session. */
  hold(sessionId: string, epoch: number): void {
    this.#held.set(sessionId, { epoch });
  }

  /** Forgets a lease of a session deleted through this host. */
  drop(sessionId: string): void {
    this.#held.delete(sessionId);
  }

  onLoss(listener: (loss: SessionLoss) => void): void {
    this.#lossListeners.push(listener);
  }

  onTakeover(handler: (sessionId: string) => Promise<string | null>): void {
    this.#takeover = handler;
  }

  /** Gives up every lease this host still holds (others take its sessions at once), once its appends are committed. */
  async releaseAll(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#renewTimer) clearInterval(this.#renewTimer);
    await this.#store.commit.drained();
    try {
      await this.#store.pool.query("UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE owner = $1", [
        this.#store.hostId,
      ]);
    } catch (error) {
      this.#store.logger.warn({ err: error }, "leases not released at exit: they expire by themselves");
    }
    this.#held.clear();
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
      const deadline = performance.now() + this.#store.leaseMs + TAKEOVER_ANSWER_MS;
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
        const answer = await this.#store.notices.ask(
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
    await this.#store.commit.committed(sessionId).catch(() => {});
    this.#store.commit.close(sessionId, sessionMoved(sessionId, "this host let it go"));
    try {
      // Its commands' full output goes with it (the spawner has ended them: the session was closed first).
      await uploadOutputs(this.#store.pool, sessionId, this.#store.outputDir(sessionId));
      await this.#store.query(
        "UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2 AND epoch = $3",
        [sessionId, this.#store.hostId, held.epoch],
      );
      await this.#store.notices.publish({ op: "released", session: sessionId, from: this.#store.hostId });
    } catch (error) {
      this.#store.logger.warn({ sessionId, err: error }, "session lease not released: it expires by itself");
    }
  }

  /** The lease if it is free, expired or this host's; else who holds it and for how long yet. */
  async #take(
    sessionId: string,
  ): Promise<
    { epoch: number; owner: string; remainingMs: number } | { epoch: null; owner: string; remainingMs: number }
  > {
    const me = this.#store.hostId;
    const { rows } = await this.#store.query<{ epoch: string }>(
      `UPDATE ash_sessions SET owner = $2, epoch = epoch + 1, lease_until = clock_timestamp() + $3 * interval '1 millisecond'
       WHERE id = $1 AND (owner IS NULL OR owner = $2 OR lease_until < clock_timestamp()) RETURNING epoch`,
      [sessionId, me, this.#store.leaseMs],
    );
    if (rows[0]) return { epoch: Number(rows[0].epoch), owner: me, remainingMs: 0 };
    const held = await this.#store.query<{ owner: string; remaining_ms: number }>(
      "SELECT owner, GREATEST(0, extract(epoch FROM lease_until - clock_timestamp()) * 1000)::float8 AS remaining_ms FROM ash_sessions WHERE id = $1",
      [sessionId],
    );
    const row = held.rows[0];
    if (!row) throw await this.#store.absent(sessionId);
    return { epoch: null, owner: row.owner, remainingMs: row.remaining_ms };
  }

  /** Renews every lease this host holds; one it no longer has is lost (taken over while this host was away). */
  async #renew(): Promise<void> {
    if (this.#closed) return;
    const ids = [...this.#held.keys()];
    try {
      if (ids.length === 0) {
        await this.#store.pool.query("SELECT 1");
        this.#store.setReachable(true);
        return;
      }
      const { rows } = await this.#store.pool.query<{ id: string; epoch: string }>(
        `UPDATE ash_sessions SET lease_until = clock_timestamp() + $2 * interval '1 millisecond'
         WHERE owner = $1 AND id = ANY($3::uuid[]) RETURNING id::text, epoch`,
        [this.#store.hostId, this.#store.leaseMs, ids],
      );
      this.#store.setReachable(true);
      const renewed = new Map(rows.map((row) => [row.id, Number(row.epoch)]));
      for (const id of ids) {
        const held = this.#held.get(id);
        if (held && renewed.get(id) !== held.epoch)
          this.lost(id, "another host took it over while this host could not renew its lease");
      }
    } catch (error) {
      this.#store.setReachable(false);
      this.#store.logger.warn({ err: error }, "leases not renewed: the store is unreachable");
    }
  }

  async onNotice(notice: Notice): Promise<void> {
    const me = this.#store.hostId;
    if (notice.from === me) return;
    if (notice.op === "deleted") {
      if (this.#held.has(notice.session)) this.lost(notice.session, `it was deleted through host ${notice.from}`);
      await rm(this.#store.outputDir(notice.session), { recursive: true, force: true });
      return;
    }
    if (notice.op !== "release" || notice.owner !== me) return;
    let refusal: string | null;
    try {
      // Not held here (an earlier incarnation of this host id had it): let it go in the store.
      refusal = this.#held.has(notice.session) ? await this.#takeover(notice.session) : null;
      if (refusal === null && !this.#held.has(notice.session)) {
        await this.#store.query(
          "UPDATE ash_sessions SET owner = NULL, lease_until = NULL WHERE id = $1 AND owner = $2",
          [notice.session, me],
        );
      }
    } catch (error) {
      refusal = `host ${me} could not let it go: ${(error as Error).message}`;
    }
    await this.#store.notices
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
        this.#store.logger.warn({ err: error, sessionId: notice.session }, "could not answer a takeover request"),
      );
  }

  lost(sessionId: string, reason: string): void {
    if (!this.#held.delete(sessionId)) return;
    this.#store.commit.close(sessionId, sessionMoved(sessionId, reason));
    this.#store.logger.warn({ sessionId, reason }, "session lost: this host no longer serves it");
    for (const listener of this.#lossListeners) listener({ sessionId, reason });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
