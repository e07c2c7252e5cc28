// Scenario 13: session/fork of a long session, as appended and compacted, on the state dir and on PostgreSQL: how long
// the fork takes to answer (through a host, the source stored and not open, each fork on a quiet host) and what it adds
// to the store (the fork's log file; on PostgreSQL its header, snapshot and copied records), beside the source's size.
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { isReplayed, snapshotLine } from "../../src/protocol/log/snapshot.js";
import { sessionPaths, sessionsDir, type LogEntry } from "../../src/protocol/log/session-log.js";
import { FileJournal, type LogFiles } from "../../workers/log/journal-file.js";
import { query, TestPostgres } from "../../test/support/postgres.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { logHeader, sessionLogEntries, writeSessionLog } from "../support/session-logs.js";
import { figure, figures, median, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const NEVER = 2 ** 40;

export interface ForkRow {
  store: "state dir" | "PostgreSQL";
  turns: number;
  compacted: boolean;
  /** The source's stored bytes (its log; on PostgreSQL its header, snapshot and records). */
  sourceBytes: number;
  forkMs: Figure;
  /** What one fork added to the store. */
  bytesWritten: Figure;
}

export interface ForkResult {
  runs: number;
  /** Forks per run (their median is the run's figure). */
  samples: number;
  rows: ForkRow[];
  /** Why the PostgreSQL rows are missing, if they are. */
  postgresSkipped: string | null;
}

export async function fork(ctx: BenchContext): Promise<ForkResult> {
  const runs = ctx.quick ? 1 : 3;
  const samples = ctx.quick ? 2 : 9;
  const sizes = ctx.quick ? [1_000] : [1_000, 10_000];
  const rows: ForkRow[] = [];
  for (const turns of sizes) {
    for (const compacted of [false, true]) rows.push(await onStateDir(ctx, turns, compacted, runs, samples));
  }
  let postgresSkipped: string | null = null;
  let cluster: TestPostgres | null = null;
  try {
    cluster = await TestPostgres.start();
  } catch (error) {
    postgresSkipped = `no PostgreSQL server to start here (${(error as Error).message.split("\n", 1)[0]})`;
  }
  if (cluster) {
    try {
      for (const turns of sizes) {
        for (const compacted of [false, true])
          rows.push(await onPostgres(ctx, cluster, turns, compacted, runs, samples));
      }
    } finally {
      await cluster.stop();
    }
  }
  return { runs, samples, rows, postgresSkipped };
}

async function onStateDir(
  ctx: BenchContext,
  turns: number,
  compacted: boolean,
  runs: number,
  samples: number,
): Promise<ForkRow> {
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-fork-"));
  try {
    mkdirSync(sessionsDir(stateDir), { recursive: true });
    const id = randomUUID();
    const paths = sessionPaths(stateDir, id);
    writeSessionLog(paths.log, id, ctx.cwd, turns);
    if (compacted) {
      const files: LogFiles = {
        path: paths.log,
        sidecarPath: paths.sidecar,
        compactingPath: paths.compacting,
        restorePointPath: paths.restorePoint,
        compactBytes: NEVER,
        log: () => {},
      };
      const journal = FileJournal.open(files, id);
      journal.compact();
      journal.close();
    }
    const sourceBytes = statSync(paths.log).size;
    const label = `fork, state dir, ${turns} turns ${compacted ? "compacted" : "as appended"}`;
    const measured = await repeat(ctx, label, runs, () =>
      withSystem(
        startHost(["--state-dir", stateDir, "--warm-workers", "2", "--log-compact-bytes", String(NEVER)]),
        async ({ client, pid }) => {
          await waitForIdle(pid);
          const times: number[] = [];
          const bytes: number[] = [];
          for (let i = 0; i < samples; i++) {
            const sent = performance.now();
            const { sessionId } = await client.fork(id, ctx.cwd);
            times.push(performance.now() - sent);
            bytes.push(statSync(sessionPaths(stateDir, sessionId).log).size);
            await client.delete(sessionId);
            // Each fork on a quiet host: the last one's worker start and flush behind its answer are over.
            await waitForIdle(pid);
          }
          return { forkMs: median(times), bytesWritten: median(bytes) };
        },
      ),
    );
    ctx.log(`${label}: ${figure(measured.map((m) => m.forkMs)).median.toFixed(1)} ms`);
    return {
      store: "state dir",
      turns,
      compacted,
      sourceBytes,
      ...figures(measured, ["forkMs", "bytesWritten"] as const),
    };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** A stored session put into the database as a host would have left it (compacted: a snapshot after every record). */
async function seedPostgres(
  url: string,
  cwd: string,
  turns: number,
  compacted: boolean,
): Promise<{ id: string; bytes: number }> {
  const id = randomUUID();
  const at = new Date().toISOString();
  const header = logHeader(id, cwd, at);
  const entries = sessionLogEntries(turns, at);
  const snapshot = compacted
    ? snapshotLine({ base: foldLog(emptyState(header), entries), replayLines: 0, replayBytes: 0 })
    : null;
  const headerText = JSON.stringify(header);
  await query(
    url,
    `INSERT INTO ash_sessions (id, cwd, header, created_ms, updated_ms, title, turns, snapshot, snapshot_seq) VALUES ($1, $2, $3, $4, $4, $5, $6, $7, $8)`,
    [id, cwd, headerText, Date.parse(at), "prompt number 0", turns, snapshot, compacted ? entries.length : 0],
  );
  const lines = entries.map((entry) => JSON.stringify(entry));
  for (let start = 0; start < lines.length; start += 5_000) {
    const part = lines.slice(start, start + 5_000);
    await query(
      url,
      "INSERT INTO ash_records (session_id, seq, epoch, replayable, entry) SELECT $1, s, 1, r, e FROM unnest($2::bigint[], $3::boolean[], $4::text[]) AS t (s, r, e)",
      [id, part.map((_, i) => start + i), part.map((_, i) => isReplayed(entries[start + i] as LogEntry)), part],
    );
  }
  return { id, bytes: await storedBytes(url, id) };
}

async function storedBytes(url: string, id: string): Promise<number> {
  const [row] = await query<{ bytes: string }>(
    url,
    "SELECT octet_length(header) + COALESCE(octet_length(snapshot), 0) + (SELECT COALESCE(sum(octet_length(entry)), 0) FROM ash_records WHERE session_id = $1) AS bytes FROM ash_sessions WHERE id = $1",
    [id],
  );
  return Number(row?.bytes ?? 0);
}

async function onPostgres(
  ctx: BenchContext,
  cluster: TestPostgres,
  turns: number,
  compacted: boolean,
  runs: number,
  samples: number,
): Promise<ForkRow> {
  const url = await cluster.database();
  // The schema first, as a host makes it.
  await withSystem(startHost(["--store", url]), async () => {});
  const { id, bytes: sourceBytes } = await seedPostgres(url, ctx.cwd, turns, compacted);
  const label = `fork, PostgreSQL, ${turns} turns ${compacted ? "compacted" : "as appended"}`;
  const measured = await repeat(ctx, label, runs, () =>
    withSystem(startHost(["--store", url, "--warm-workers", "2"]), async ({ client, pid }) => {
      await waitForIdle(pid);
      const times: number[] = [];
      const bytes: number[] = [];
      for (let i = 0; i < samples; i++) {
        const sent = performance.now();
        const { sessionId } = await client.fork(id, ctx.cwd);
        times.push(performance.now() - sent);
        bytes.push(await storedBytes(url, sessionId));
        await client.delete(sessionId);
        await waitForIdle(pid);
      }
      return { forkMs: median(times), bytesWritten: median(bytes) };
    }),
  );
  ctx.log(`${label}: ${figure(measured.map((m) => m.forkMs)).median.toFixed(1)} ms`);
  return {
    store: "PostgreSQL",
    turns,
    compacted,
    sourceBytes,
    ...figures(measured, ["forkMs", "bytesWritten"] as const),
  };
}

export const scenario: Scenario<ForkResult> = {
  order: 14,
  key: "fork",
  flag: "fork",
  title: "14. session/fork of a long session, as appended and compacted",
  run: fork,
  section: (f) => [
    `${plural(f.runs, "run")} of ${f.samples} forks each (their median is the run's figure), through a host with a standby worker, the source stored and not open; ` +
      "logs written as a scripted session writes them (an echo, every fourth turn a bash call). fork ms: session/fork sent to answered (the fork written: committed on PostgreSQL; in the state dir flushed right after, as a new session's log is); " +
      "bytes written: what the fork added to the store (its log; on PostgreSQL its header, snapshot and copied records), beside what the source takes." +
      (f.postgresSkipped ? ` PostgreSQL: ${f.postgresSkipped}.` : ""),
    "",
    table(
      ["store", "turns", "source", "source MiB", "fork ms", "bytes written MiB", "goal"],
      f.rows.map((row) => [
        row.store,
        String(row.turns),
        row.compacted ? "compacted" : "as appended",
        (row.sourceBytes / 2 ** 20).toFixed(2),
        fmt(row.forkMs),
        (row.bytesWritten.median / 2 ** 20).toFixed(2),
        row.turns === 10_000 ? "≤ 100 ms; ≤ one compacted copy" : "",
      ]),
    ),
  ],
};
