// Scenario 10: session/list over many stored sessions, written straight to a fresh state dir (a header line and a
// sidecar each, as a host leaves them). "first page" is the first session/list after the host started: it waits
// for the index to be built (every sidecar read once); then pages are timed while walking the listing with its
// cursor, pages filtered to a cwd that 1 session in 100 has, and a page right after a turn ended in one session.
// The host's RSS once the index is built says what holding it costs.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { rssBytes, waitForIdle } from "../support/proc.js";
import { writeStoredSessions } from "../support/stored-sessions.js";
import { figures, summarize, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const KEYS = ["firstPageMs", "rssMiB", "pageP50", "pageP99", "cwdPageP50", "afterTurnMs"] as const;

export interface ListResult {
  runs: number;
  sessions: number;
  pageSize: number;
  pagesWalked: number;
  /** Seconds to write the state dir (not part of any figure). */
  writeS: number;
  figures: Record<(typeof KEYS)[number], Figure>;
}

const CWDS = 100;
const PAGE_SIZE = 100;

export async function list(ctx: BenchContext): Promise<ListResult> {
  const runs = ctx.quick ? 1 : 3;
  const sessions = ctx.quick ? 2_000 : 100_000;
  const pagesWalked = ctx.quick ? 10 : 50;
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-list-"));
  try {
    const written = performance.now();
    const cwds = Array.from({ length: CWDS }, (_, i) => join(ctx.cwd, `project-${i}`));
    for (const cwd of cwds) mkdirSync(cwd, { recursive: true });
    writeStoredSessions(stateDir, sessions, cwds);
    const writeS = (performance.now() - written) / 1000;
    ctx.log(`list: ${sessions} sessions written in ${writeS.toFixed(1)} s`);
    const measured = await repeat(ctx, `session/list over ${sessions} sessions`, runs, () =>
      withSystem(
        startHost(["--state-dir", stateDir, "--list-page-size", String(PAGE_SIZE)]),
        async ({ client, pid }) => {
          let sent = performance.now();
          let page = await client.list({});
          const firstPageMs = performance.now() - sent;
          await waitForIdle(pid);
          const rssMiB = rssBytes(pid) / 2 ** 20;
          const pages: number[] = [];
          for (let i = 0; i < pagesWalked && page.nextCursor; i++) {
            sent = performance.now();
            page = await client.list({ cursor: page.nextCursor });
            pages.push(performance.now() - sent);
          }
          const cwdPages: number[] = [];
          for (let i = 0; i < 10; i++) {
            sent = performance.now();
            await client.list({ cwd: cwds[i]! });
            cwdPages.push(performance.now() - sent);
          }
          const { sessionId } = await client.newSession(cwds[0]!);
          await client.prompt(sessionId, "touch");
          sent = performance.now();
          const after = await client.list({});
          const afterTurnMs = performance.now() - sent;
          if (after.sessions[0]?.sessionId !== sessionId)
            throw new Error("the session prompted last is not listed first");
          await client.delete(sessionId);
          return {
            firstPageMs,
            rssMiB,
            pageP50: summarize(pages).p50,
            pageP99: summarize(pages).p99,
            cwdPageP50: summarize(cwdPages).p50,
            afterTurnMs,
          };
        },
      ),
    );
    return { runs, sessions, pageSize: PAGE_SIZE, pagesWalked, writeS, figures: figures(measured, KEYS) };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

export const scenario: Scenario<ListResult> = {
  order: 11,
  key: "list",
  flag: "list",
  title: "11. session/list over many stored sessions",
  run: list,
  section: (l) => [
    `${plural(l.runs, "run")} over ${l.sessions} stored sessions (a header and a sidecar each, written in ${l.writeS.toFixed(0)} s before the host starts), ${l.pageSize} a page. ` +
      `First page: the first session/list after start (it waits for the index: every sidecar read once). Page: ${l.pagesWalked} pages walked with the cursor. ` +
      `cwd page: filtered to a cwd 1 session in ${CWDS} has. After a turn: the first page right after a prompt in a new session (listed first).`,
    "",
    table(
      ["first page", "host RSS MiB", "page p50", "page p99", "cwd page p50", "after a turn"],
      [
        [
          fmt(l.figures.firstPageMs),
          fmt(l.figures.rssMiB),
          fmt(l.figures.pageP50),
          fmt(l.figures.pageP99),
          fmt(l.figures.cwdPageP50),
          fmt(l.figures.afterTurnMs),
        ],
      ],
    ),
  ],
};
