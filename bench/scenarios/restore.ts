// Scenario 9: restoring a session with a long log, before and after its compaction (--log-compact-bytes).
// "restore" is what a session worker does before it answers open, measured in this process with the worker's own
// code: read and check the log, fold it into the conversation, tools allowed and token sums. "resume" is the same
// through a host (session/resume of a stored session: lock, header, a standby worker, the restore); "load" adds
// the replay of every message to the client. "first answer" is what a client waits for to use a long session again:
// session/resume and its first prompt in a host started for it, against the same for a session of one turn (issue 54:
// within 1.5 times the one-turn session's, plus 20 ms).
import { randomUUID } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { foldLog } from "../../src/protocol/log/session-state.js";
import { sessionPaths, sessionsDir } from "../../src/protocol/log/session-log.js";
import { FileJournal, RESTORE_POINT_MIN_BYTES, type LogFiles } from "../../workers/log/journal-file.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { writeSessionLog } from "../support/session-logs.js";
import { figure, figures, median, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const NEVER = 2 ** 40;

export interface RestoreRow {
  turns: number;
  compacted: boolean;
  /** A compaction was asked for and skipped: the compacted log would not have been smaller. */
  compactionSkipped?: boolean;
  logBytes: number;
  restoreMs: Figure;
  resumeMs: Figure;
  loadMs: Figure;
}

/** session/resume and the first prompt after it, each in a fresh host, for one long session. */
export interface FirstAnswerRow {
  turns: number;
  /** Its context summarised every this many turns; null: never (a scripted session's log). */
  summarisedEvery: number | null;
  /** Whether the log was compacted (it is only when that makes it smaller). */
  compacted: boolean;
  /** Whether a restore point lies beside it (the worker writes one at a turn end when the log was not compacted). */
  restorePoint: boolean;
  /** How far before the log's end its restore point lies, bytes (0: at its end). */
  pointBehind: number;
  logBytes: number;
  ms: Figure;
}

export interface FirstAnswerAfterResume {
  rows: FirstAnswerRow[];
  /** The same for a session of one turn, in the same rounds. */
  oneTurnMs: Figure;
  /** The goal for each row: within 1.5 times the one-turn session's, plus 20 ms. */
  goalMs: number;
}

export interface RestoreResult {
  runs: number;
  /** Restores per run (their median is the run's figure); resumes and loads per run. */
  samples: { restore: number; resume: number; load: number };
  rows: RestoreRow[];
  firstAnswer: FirstAnswerAfterResume;
}

export async function restore(ctx: BenchContext): Promise<RestoreResult> {
  const runs = ctx.quick ? 1 : 3;
  const samples = { restore: ctx.quick ? 3 : 15, resume: ctx.quick ? 2 : 8, load: ctx.quick ? 1 : 3 };
  const rows: RestoreRow[] = [];
  for (const turns of ctx.quick ? [1_000] : [1_000, 10_000]) {
    for (const compact of [false, true]) {
      const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-restore-"));
      try {
        mkdirSync(sessionsDir(stateDir), { recursive: true });
        const id = randomUUID();
        const paths = sessionPaths(stateDir, id);
        writeSessionLog(paths.log, id, ctx.cwd, turns);
        let compacted = false;
        if (compact) {
          const journal = FileJournal.open(logFiles(paths.log), id);
          compacted = journal.compact();
          journal.close();
        }
        const logBytes = statSync(paths.log).size;
        const label = `${turns} turns ${compacted ? "compacted" : compact ? "not compacted (would not be smaller)" : "as appended"}`;
        const measured = await repeat(ctx, `restore ${label}`, runs, async () => {
          // A copy: the in-process restores must not touch the log the host opens.
          const copy = join(stateDir, "copy.jsonl");
          copyFileSync(paths.log, copy);
          const restores: number[] = [];
          for (let i = 0; i < samples.restore; i++) restores.push(timeRestore(logFiles(copy), id));
          const host = await withSystem(
            startHost(["--state-dir", stateDir, "--warm-workers", "2", "--log-compact-bytes", String(NEVER)]),
            async ({ client, pid }) => {
              await waitForIdle(pid);
              const resumes: number[] = [];
              for (let i = 0; i < samples.resume; i++) {
                const sent = performance.now();
                await client.resume(id, ctx.cwd);
                resumes.push(performance.now() - sent);
                await client.close(id);
              }
              const loads: number[] = [];
              for (let i = 0; i < samples.load; i++) {
                const sent = performance.now();
                await client.load(id, ctx.cwd);
                loads.push(performance.now() - sent);
                await client.close(id);
              }
              return { resumeMs: median(resumes), loadMs: median(loads) };
            },
          );
          return { restoreMs: median(restores), ...host };
        });
        rows.push({
          turns,
          compacted,
          ...(compact && !compacted ? { compactionSkipped: true } : {}),
          logBytes,
          ...figures(measured, ["restoreMs", "resumeMs", "loadMs"] as const),
        });
        ctx.log(`restore ${label}: ${figure(measured.map((m) => m.restoreMs)).median.toFixed(1)} ms`);
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    }
  }
  return { runs, samples, rows, firstAnswer: await firstAnswerAfterResume(ctx) };
}

const LONG_TURNS = 2_000;
const SUMMARISED_EVERY = 100;

/**
 * A 2,000-turn session as a real model's session leaves it (usage each turn, its context summarised every 100 turns,
 * the log compacted) and as a scripted one does (never summarised, so its log is never smaller compacted), against a
 * one-turn session: session/resume then a prompt, each in a host started for it, in rounds, so all meet the same
 * machine.
 */
async function firstAnswerAfterResume(ctx: BenchContext): Promise<FirstAnswerAfterResume> {
  const rounds = ctx.quick ? 1 : 7;
  const stateDir = mkdtempSync(join(tmpdir(), "ash-bench-first-answer-"));
  try {
    mkdirSync(sessionsDir(stateDir), { recursive: true });
    const write = (turns: number, summarisedEvery: number | null, pointBehind = 0) => {
      const id = randomUUID();
      const { log } = sessionPaths(stateDir, id);
      writeSessionLog(log, id, ctx.cwd, turns, summarisedEvery === null ? {} : { summarisedEvery });
      const journal = FileJournal.open(logFiles(log), id);
      const compacted = journal.compact();
      // As a worker leaves a long log it could not compact: a restore point at its last turn end, or as far behind
      // it as a worker lets one be.
      const restorePoint =
        !compacted && turns > 1 && (pointBehind > 0 ? pointAt(log, id, pointBehind) : journal.writeRestorePoint());
      journal.close();
      return {
        id,
        turns,
        summarisedEvery,
        compacted,
        restorePoint,
        pointBehind,
        logBytes: statSync(log).size,
        timed: [] as number[],
      };
    };
    const oneTurn = write(1, null);
    const long = [
      write(LONG_TURNS, SUMMARISED_EVERY),
      write(LONG_TURNS, null),
      write(LONG_TURNS, null, RESTORE_POINT_MIN_BYTES),
    ];
    // Each round starts from the same files: a round's turn would otherwise move the log on, and its turn end the point.
    const saved = [oneTurn, ...long].flatMap(({ id }) => {
      const { log } = sessionPaths(stateDir, id);
      return [log, `${log}.restore`]
        .filter((path) => existsSync(path))
        .map((path) => ({ path, copy: `${path}.saved` }));
    });
    for (const { path, copy } of saved) copyFileSync(path, copy);
    for (let round = 0; round < rounds; round++) {
      for (const { path, copy } of saved) copyFileSync(copy, path);
      for (const session of [oneTurn, ...long]) {
        session.timed.push(
          await withSystem(startHost(["--state-dir", stateDir]), async ({ client, pid }) => {
            await waitForIdle(pid);
            const sent = performance.now();
            await client.resume(session.id, ctx.cwd);
            await client.prompt(session.id, "and now?");
            const elapsed = performance.now() - sent;
            await client.close(session.id);
            return elapsed;
          }),
        );
      }
    }
    const oneTurnMs = figure(oneTurn.timed);
    const rows = long.map(({ turns, summarisedEvery, compacted, restorePoint, pointBehind, logBytes, timed }) => ({
      turns,
      summarisedEvery,
      compacted,
      restorePoint,
      pointBehind,
      logBytes,
      ms: figure(timed),
    }));
    ctx.log(
      `first answer after resume: ${rows.map((row) => `${row.ms.median.toFixed(1)} ms`).join(", ")} (${LONG_TURNS} turns), one turn ${oneTurnMs.median.toFixed(1)} ms`,
    );
    return { rows, oneTurnMs, goalMs: 1.5 * oneTurnMs.median + 20 };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * A restore point `behind` bytes (or a little more, at a turn's end) before the end of the log at `log`: written by a
 * journal on a copy of the log up to there (the same bytes), then moved beside the log. Returns whether it was.
 */
function pointAt(log: string, sessionId: string, behind: number): boolean {
  const data = readFileSync(log);
  let cut = data.lastIndexOf(0x0a, data.length - behind);
  while (cut > 0 && !data.toString("utf8", data.lastIndexOf(0x0a, cut - 1) + 1, cut).includes('"type":"turn_end"'))
    cut = data.lastIndexOf(0x0a, cut - 1);
  const prefix = `${log}.prefix`;
  writeFileSync(prefix, data.subarray(0, cut + 1));
  const journal = FileJournal.open(logFiles(prefix), sessionId);
  const written = journal.writeRestorePoint();
  journal.close();
  renameSync(`${prefix}.restore`, `${log}.restore`);
  for (const path of [prefix, `${prefix}.meta`]) rmSync(path, { force: true });
  return written;
}

/** A log's files as a worker opens them, never compacted on its own. */
function logFiles(path: string): LogFiles {
  return {
    path,
    sidecarPath: `${path}.meta`,
    compactingPath: `${path}.compact`,
    restorePointPath: `${path}.restore`,
    compactBytes: NEVER,
    log: () => {},
  };
}

/** A worker's restore: open the log (load-repair), then fold it as the agent loop does. */
function timeRestore(files: LogFiles, sessionId: string): number {
  const started = performance.now();
  const journal = FileJournal.open(files, sessionId);
  foldLog(journal.base(), journal.entries());
  const elapsed = performance.now() - started;
  journal.close();
  return elapsed;
}

export const scenario: Scenario<RestoreResult> = {
  order: 10,
  key: "restore",
  flag: "restore",
  title: "10. Restore of a long session log, as appended and compacted",
  run: restore,
  section: (r) => [
    `${plural(r.runs, "run")}. Logs written as a scripted session writes them (an echo, every fourth turn a bash call). ` +
      `restore: a worker's restore in-process (read, check, fold the conversation; median of ${r.samples.restore}); ` +
      `resume: session/resume through a host with a standby worker (median of ${r.samples.resume}); load: session/load with the replay of every message (median of ${r.samples.load}).`,
    "",
    table(
      ["turns", "log", "log MiB", "restore ms", "resume ms", "load ms"],
      r.rows.map((row) => [
        String(row.turns),
        row.compacted ? "compacted" : row.compactionSkipped ? "compaction skipped (not smaller)" : "as appended",
        (row.logBytes / 2 ** 20).toFixed(1),
        fmt(row.restoreMs),
        fmt(row.resumeMs),
        fmt(row.loadMs),
      ]),
    ),
    "",
    `First answer after resume: session/resume and one prompt, each in a host started for it, of a long session against a ` +
      `one-turn session's (${fmt(r.firstAnswer.oneTurnMs)} ms), in rounds. Summarised: usage each turn, the context summarised every so many turns, as on a real model; ` +
      "never: a scripted session's log. A log is compacted only when that makes it smaller; one that is not gets a restore point " +
      "(the state at its last turn end, beside it), as its worker leaves it, so the resume reads only the log after it.",
    "",
    table(
      ["turns", "context summarised", "log", "log MiB", "ms", "goal ms (1.5× one turn + 20)", "met"],
      r.firstAnswer.rows.map((row) => [
        String(row.turns),
        row.summarisedEvery === null ? "never" : `every ${row.summarisedEvery} turns`,
        row.compacted
          ? "compacted"
          : !row.restorePoint
            ? "as appended"
            : row.pointBehind > 0
              ? `as appended, restore point ${Math.round(row.pointBehind / 1024)} KiB before its end`
              : "as appended, restore point at its end",
        (row.logBytes / 2 ** 20).toFixed(1),
        fmt(row.ms),
        r.firstAnswer.goalMs.toFixed(1),
        row.ms.median <= r.firstAnswer.goalMs ? "yes" : "no",
      ]),
    ),
  ],
};
