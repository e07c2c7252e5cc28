// A fork in PostgreSQL: the source's rows copied in one transaction, the fork point found by the database. Where the
// fork point lies and the source's settings there are read from the records' first characters (as every entry is
// written, {"type":"…); only the few entries that set something, and the end of the snapshot, come to this thread.
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type { RequestError } from "@agentclientprotocol/sdk/unstable";
import type pg from "pg";
import { hostError } from "../../request-errors.js";
import {
  COMPACTED_LOG_FORMAT_VERSION,
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  LogError,
  parseHeaderLine,
  type LogHeader,
} from "../../protocol/log/session-log.js";
import { snapshotTailSettings } from "../../protocol/log/snapshot.js";
import { SUMMARY_RULE } from "../../protocol/log/session-state.js";
import { entryTypeOf, forkPoint, type ForkPointState } from "../fork-point.js";
import type { ForkedSession, ForkRequest } from "../session-store.js";

/** How much of a snapshot's end a fork reads for its settings (they follow the conversation, and are small). */
const SNAPSHOT_END_CHARS = 1024 * 1024;

/** The entries of one type among the records after the snapshot and before the fork point ($1 to $3). */
function entriesOf(type: string): string {
  return `FROM ash_records WHERE session_id = $1 AND seq >= $2 AND seq < $3 AND entry LIKE '{"type":"${type}"%'`;
}

/**
 * What changes the summary before the fork point (SUMMARY_RULE), found by the database: the count of turn ends, the
 * last entry of each setting and ($4: the base has no title) the first prompt.
 */
const SUMMARY_SQL = `SELECT
  (SELECT count(*) ${entriesOf(SUMMARY_RULE.counted)}) AS counted,
  ${SUMMARY_RULE.lastWins.map((type, index) => `(SELECT entry ${entriesOf(type)} ORDER BY seq DESC LIMIT 1) AS last_${index},`).join("\n  ")}
  CASE WHEN $4 THEN (SELECT entry ${entriesOf(SUMMARY_RULE.firstWhileUntitled)} ORDER BY seq LIMIT 1) END AS first_untitled`;

type SummaryRow = { counted: string; first_untitled: string | null } & Record<`last_${number}`, string | null>;

/** What a fork needs of the store that runs it. */
export interface ForkStore {
  /** This host's name in leases: the fork is this host's from its first moment. */
  hostId: string;
  leaseMs: number;
  label: string;
  /** The error for a session not stored (never, or deleted). */
  absent(sessionId: string): Promise<RequestError>;
}

/**
 * Copies the source's rows in one transaction on `client` (a consistent view of them: REPEATABLE READ): its snapshot,
 * the records before it that session/load replays and every record after it up to its last ended turn, under a new
 * row whose header names the source and the fork point. Commits; the caller rolls back when it throws.
 */
export async function copyFork(client: pg.PoolClient, request: ForkRequest, store: ForkStore): Promise<ForkedSession> {
  const { sourceId } = request;
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
    throw await store.absent(sourceId);
  }
  const source = storedHeader(sourceId, row.header, store.label);
  const snapshotSeq = Number(row.snapshot_seq);
  const base =
    row.snapshot_end === null
      ? { mode: source.mode, model: source.model, systemPrompt: source.systemPrompt ?? null, turns: 0, title: null }
      : await snapshotBase(client, sourceId, row.snapshot_end);
  const { state, forkSeq } = await forkPointOf(client, sourceId, snapshotSeq, base);
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
      store.hostId,
      store.leaseMs,
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
  return {
    sessionId: id,
    forkOf,
    mode: state.mode,
    model: state.model,
    systemPrompt,
    title: state.title,
    bytesWritten: Buffer.byteLength(headerText) + Number(row.snapshot_bytes ?? 0) + Number(copied.rows[0]?.bytes ?? 0),
  };
}

/** A stored header, read; LOG_UNUSABLE when it cannot be. */
export function storedHeader(sessionId: string, text: string, label: string): LogHeader {
  try {
    return parseHeaderLine(text, sessionId);
  } catch (error) {
    if (error instanceof LogError)
      throw hostError("LOG_UNUSABLE", `the stored header of session ${sessionId} cannot be used: ${error.message}`, {
        sessionId,
        store: label,
      });
    throw error;
  }
}

/**
 * The fork point among the records after the snapshot (after the last turn_end, unless a turn_start follows it), and
 * the state there. Records not written as entries are ({"type":"… first) are read one by one instead.
 */
async function forkPointOf(
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
  const { rows } = await client.query<SummaryRow>(SUMMARY_SQL, [sessionId, snapshotSeq, forkSeq, base.title === null]);
  const found = rows[0]!;
  const settings = [...SUMMARY_RULE.lastWins.map((_, index) => found[`last_${index}`]), found.first_untitled].flatMap(
    (entry) =>
      entry === null || entry === undefined
        ? []
        : [
            {
              type: entryTypeOf(entry.slice(0, 40), () => JSON.parse(entry)),
              entry: () => JSON.parse(entry) as Record<string, unknown>,
            },
          ],
  );
  const { state } = forkPoint(settings, { ...base, turns: base.turns + Number(found.counted) }, "whole");
  return { state, forkSeq };
}

/** The settings a snapshot holds, from its end (the whole snapshot when its settings are longer than that end). */
async function snapshotBase(client: pg.PoolClient, sessionId: string, end: string): Promise<ForkPointState> {
  const settings =
    snapshotTailSettings(end) ??
    snapshotTailSettings(
      (await client.query<{ snapshot: string }>("SELECT snapshot FROM ash_sessions WHERE id = $1", [sessionId]))
        .rows[0]!.snapshot,
    );
  if (!settings) throw new LogError("its snapshot is corrupt: it has no history");
  return settings;
}
