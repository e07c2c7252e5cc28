// The PostgreSQL fork (src/store/postgres/fork.ts) finds the fork point and the summary there in SQL built from the
// log's summary rule; on generated logs (an open turn at the end, lines typed first or last) it agrees with the fold:
// the fork's settings, turns and title, and the records it copies.
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "../../src/logger.js";
import type { SessionSummary } from "../../src/protocol/log/session-state.js";
import { PostgresStore } from "../../src/store/postgres/postgres-store.js";
import { forkedLog, summaryOf } from "../support/log-arbitraries.js";
import { postgresPerFile, query } from "../support/postgres.js";
import { tempDir } from "../support/temp-dirs.js";

const cluster = postgresPerFile();
let url = "";
let store: PostgresStore;

beforeAll(async () => {
  url = await cluster.database();
  store = await PostgresStore.open(
    { url, hostId: "fork-test", leaseMs: 30_000, compactBytes: 2 ** 40, outputRoot: tempDir("ash-pg-fork-") },
    createLogger("silent"),
  );
});

afterAll(async () => {
  await store?.close();
});

const settings = { cwd: "/work", mode: "ask", model: { provider: "scripted", model: "scripted", retries: 0 } } as const;
const base: SessionSummary = { ...settings, systemPrompt: null, turns: 0, title: null };

it("forks at the fold's fork point, with the fold's summary there", async () => {
  await fc.assert(
    fc.asyncProperty(forkedLog(fc.constant(base)), async ({ lines, expected, count }) => {
      const sourceId = await store.create(settings, "test", null);
      await query(
        url,
        `INSERT INTO ash_records (session_id, seq, epoch, replayable, entry)
         SELECT $1, seq - 1, 1, true, entry FROM unnest($2::text[]) WITH ORDINALITY AS lines(entry, seq)`,
        [sourceId, lines],
      );
      const fork = await store.fork({ sourceId, cwd: "/work", tenant: null, hostVersion: "test" });
      const { mode, model, systemPrompt, title } = summaryOf(expected);
      expect(fork).toMatchObject({ forkOf: { sessionId: sourceId, turns: expected.turns }, mode, model, title });
      expect(fork.systemPrompt).toEqual(systemPrompt);
      const copied = await query<{ entry: string }>(
        url,
        "SELECT entry FROM ash_records WHERE session_id = $1 ORDER BY seq",
        [fork.sessionId],
      );
      expect(copied.map((row) => row.entry)).toEqual(lines.slice(0, count));
    }),
    { numRuns: 25 },
  );
});
