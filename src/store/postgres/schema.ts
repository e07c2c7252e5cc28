// The PostgreSQL store's schema, versioned: each migration runs once, in order, in one transaction, under an advisory
// lock, so hosts starting at once migrate it once between them. `acp-session-host store migrate --store URL` runs the
// same and exits.
//   ash_sessions    one row a session: its header, what session/list shows (title, turns, archived, a child's parent,
//                   a fork's source), its last snapshot, and who holds it (owner, epoch, lease_until: every append is
//                   conditional on the epoch)
//   ash_records     the append-only log: one row a record, numbered per session from 0, with the epoch that wrote it
//   ash_tombstones  ids deleted: never loaded or handed out again
//   ash_outputs     the full output of the commands a session ran (the host that ran them uploads it when the session
//                   leaves it)
import type { Pool, PoolClient } from "pg";

/** One key for the whole schema (pg_advisory_xact_lock takes a bigint): "ash" and the schema's first version. */
const MIGRATION_LOCK = 0x61736801;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ash_sessions (
     id uuid PRIMARY KEY,
     tenant text,
     cwd text NOT NULL,
     header text NOT NULL,
     created_ms bigint NOT NULL,
     updated_ms bigint NOT NULL,
     title text,
     turns integer NOT NULL DEFAULT 0,
     snapshot text,
     snapshot_seq bigint NOT NULL DEFAULT 0,
     owner text,
     epoch bigint NOT NULL DEFAULT 1,
     lease_until timestamptz
   );
   CREATE INDEX ash_sessions_listed ON ash_sessions (updated_ms DESC, id DESC);
   CREATE INDEX ash_sessions_listed_by_tenant ON ash_sessions (tenant, updated_ms DESC, id DESC);
   CREATE INDEX ash_sessions_listed_by_cwd ON ash_sessions (cwd, updated_ms DESC, id DESC);
   CREATE INDEX ash_sessions_owner ON ash_sessions (owner) WHERE owner IS NOT NULL;
   CREATE TABLE ash_records (
     session_id uuid NOT NULL REFERENCES ash_sessions (id) ON DELETE CASCADE,
     seq bigint NOT NULL,
     epoch bigint NOT NULL,
     replayable boolean NOT NULL,
     entry text NOT NULL,
     PRIMARY KEY (session_id, seq)
   );
   CREATE TABLE ash_tombstones (id uuid PRIMARY KEY, deleted_at timestamptz NOT NULL DEFAULT now());`,
  // 2: the full output of each command a session ran, in parts of at most a MiB, kept once the session leaves its host.
  `CREATE TABLE ash_outputs (
     session_id uuid NOT NULL REFERENCES ash_sessions (id) ON DELETE CASCADE,
     name text NOT NULL,
     part integer NOT NULL,
     content bytea NOT NULL,
     PRIMARY KEY (session_id, name, part)
   );`,
  // 3: what a client sets (a title it gave, archived) and a session's lineage (a child's parent, a fork's source), for
  // session/list without reading headers.
  `ALTER TABLE ash_sessions
     ADD COLUMN titled boolean NOT NULL DEFAULT false,
     ADD COLUMN archived boolean NOT NULL DEFAULT false,
     ADD COLUMN parent_id uuid,
     ADD COLUMN parent_depth integer,
     ADD COLUMN fork_of uuid,
     ADD COLUMN fork_turns integer;
   CREATE INDEX ash_sessions_children ON ash_sessions (parent_id) WHERE parent_id IS NOT NULL;`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the schema to SCHEMA_VERSION; returns the version it found. Refuses a schema newer than this host's. */
export async function migrate(pool: Pool): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query("CREATE TABLE IF NOT EXISTS ash_schema (version integer NOT NULL)");
    const found = await currentVersion(client);
    if (found > SCHEMA_VERSION)
      throw new Error(`the schema is at version ${found}, newer than this host's ${SCHEMA_VERSION}`);
    for (let version = found; version < SCHEMA_VERSION; version++) await client.query(MIGRATIONS[version]!);
    await client.query("DELETE FROM ash_schema");
    await client.query("INSERT INTO ash_schema (version) VALUES ($1)", [SCHEMA_VERSION]);
    await client.query("COMMIT");
    return found;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

async function currentVersion(client: PoolClient): Promise<number> {
  const { rows } = await client.query<{ version: number }>("SELECT version FROM ash_schema");
  return rows[0]?.version ?? 0;
}
