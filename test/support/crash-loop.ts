// The kill -9 loop: sessions run real turns while the host is SIGKILLed at a random moment, again and again, on
// one state dir. After each kill: no process of the dead host survives, every log restores; after each restart,
// session/load replays every turn whose end the client saw, in full and in order. Logs are compacted every few
// turns (--log-compact-bytes at its minimum), so kills land before, during and after compactions too: the first
// session runs short echoes, which a compaction makes smaller (the others' logs it would make larger: it is skipped).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient } from "../../src/client/index.js";
import { LogError, sessionPaths } from "../../src/protocol/log/session-log.js";
import { restoreLog } from "../../workers/log/log-repair.js";
import { crashTurn, shortTurn } from "./crash-turns.js";
import { whenInFsync } from "./fsync-watch.js";
import { transcript } from "./durable.js";
import { seeded } from "./prng.js";
import { descendants, isAlive } from "./proc.js";

export interface CrashLoopOptions {
  seed: number;
  kills: number;
  sessions: number;
  /** A kill lands this long after the host is up and its sessions are busy (ms, drawn from the seed). */
  killAfterMs: [number, number];
  log?: (line: string) => void;
}

export interface CrashLoopReport {
  seed: number;
  kills: number;
  /** Kills that landed while a thread of the host was inside fsync/fdatasync. */
  killsInFsync: number;
  turnsSeen: number;
  turnsChecked: number;
  turnsLost: number;
  unreadableLogs: number;
  /** Session logs found compacted after a kill (their header says formatVersion 2). */
  compactedLogs: number;
  /** Kills that landed mid-compaction: a session's new log was written but not yet renamed over its log. */
  killsMidCompaction: number;
  orphans: number;
  failures: string[];
}

interface Tracked {
  id: string;
  cwd: string;
  /** Each turn whose end the client saw: what it showed, as replay shows it. */
  seen: string[][];
}

/** Splits a replay into turns, one per user message, tool calls numbered within their turn as a live turn is. */
function turnsOf(lines: readonly string[]): string[][] {
  const turns: string[][] = [];
  for (const line of lines) {
    if (line.startsWith("user: ")) turns.push([line]);
    else turns.at(-1)?.push(line);
  }
  return turns.map(renumberCalls);
}

function renumberCalls(turn: readonly string[]): string[] {
  const numbers = new Map<string, number>();
  return turn.map((line) =>
    line.replace(/^tool call#(\d+)/, (_, n: string) => {
      if (!numbers.has(n)) numbers.set(n, numbers.size + 1);
      return `tool call#${numbers.get(n)}`;
    }),
  );
}

/** The turns of `seen` missing from `replayed` or out of order there (replay may hold interrupted turns too). */
export function lostTurns(seen: readonly string[][], replayed: readonly string[][]): string[][] {
  const lost: string[][] = [];
  let from = 0;
  for (const turn of seen) {
    const at = replayed.findIndex(
      (candidate, index) => index >= from && JSON.stringify(candidate) === JSON.stringify(turn),
    );
    if (at < 0) lost.push(turn);
    else from = at + 1;
  }
  return lost;
}

const short = (turn: readonly string[]): string =>
  JSON.stringify(turn.map((line) => (line.length > 100 ? `${line.slice(0, 100)}…` : line)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitGone(pids: number[], timeoutMs: number): Promise<number[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const alive = pids.filter(isAlive);
    if (alive.length === 0 || Date.now() > until) return alive;
    await sleep(50);
  }
}

export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopReport> {
  const { seed, kills, sessions, killAfterMs, log = () => {} } = options;
  const random = seeded(seed);
  const root = mkdtempSync(join(tmpdir(), "ash-crash-"));
  const state = join(root, "state");
  const report: CrashLoopReport = {
    seed,
    kills: 0,
    killsInFsync: 0,
    turnsSeen: 0,
    turnsChecked: 0,
    turnsLost: 0,
    unreadableLogs: 0,
    compactedLogs: 0,
    killsMidCompaction: 0,
    orphans: 0,
    failures: [],
  };
  const tracked: Tracked[] = [];
  let turnNumber = 0;
  const spawnHost = () =>
    HostClient.spawn({
      hostArgs: [
        "--state-dir",
        state,
        "--default-mode",
        "auto",
        "--warm-workers",
        "1",
        "--log-level",
        "warn",
        "--log-compact-bytes",
        "1024",
      ],
      permission: "allow",
    });
  try {
    for (let round = 0; round <= kills; round++) {
      const client = await spawnHost();
      const pid = client.child!.pid!;
      if (round === 0) {
        for (let i = 0; i < sessions; i++) {
          const cwd = mkdtempSync(join(root, "cwd-"));
          tracked.push({ id: (await client.newSession(cwd)).sessionId, cwd, seen: [] });
        }
      } else {
        for (const session of tracked) {
          const replayed = turnsOf(transcript(await client.load(session.id, session.cwd)));
          const lost = lostTurns(session.seen, replayed);
          report.turnsChecked += session.seen.length;
          report.turnsLost += lost.length;
          for (const turn of lost) {
            const replay = replayed.find((candidate) => candidate[0] === turn[0]);
            report.failures.push(
              `round ${round}, session ${session.id}: turn ${replay ? "changed" : "lost"}:\n  seen:   ${short(turn)}\n  replay: ${replay ? short(replay) : "(none)"}`,
            );
          }
        }
      }
      if (round === kills) {
        await client.dispose();
        break;
      }
      // Every session runs turns back to back until the kill.
      let killed = false;
      const loops = tracked.map(async (session) => {
        while (!killed) {
          const text = session === tracked[0] ? shortTurn(++turnNumber) : crashTurn(random, ++turnNumber);
          try {
            const result = await client.prompt(session.id, text);
            session.seen.push([`user: ${text}`, ...transcript(result.updates)]);
            report.turnsSeen++;
          } catch {
            if (!killed) report.failures.push(`round ${round}: a turn failed before the kill: ${text}`);
            break;
          }
        }
      });
      await sleep(random.int(killAfterMs[0], killAfterMs[1]));
      // Every other kill waits (briefly) for a thread of the host to be inside fsync/fdatasync.
      if (round % 2 === 1 && (await whenInFsync(pid, 500))) report.killsInFsync++;
      const family = descendants(pid);
      killed = true;
      const exited = new Promise((resolve) => client.child!.once("exit", resolve));
      process.kill(pid, "SIGKILL");
      await exited;
      report.kills++;
      await Promise.all(loops);
      await client.dispose().catch(() => null);
      const survivors = await waitGone(family, 15_000);
      report.orphans += survivors.length;
      if (survivors.length > 0)
        report.failures.push(`round ${round}: processes of the killed host survive: ${survivors.join(", ")}`);
      for (const session of tracked) {
        if (existsSync(sessionPaths(state, session.id).compacting)) report.killsMidCompaction++;
        try {
          if (restoreLog(readFileSync(sessionPaths(state, session.id).log), session.id).snapshot)
            report.compactedLogs++;
        } catch (error) {
          report.unreadableLogs++;
          report.failures.push(
            `round ${round}: log of ${session.id} unreadable: ${error instanceof LogError ? error.message : String(error)}`,
          );
        }
      }
      log(
        `kill ${report.kills}/${kills}: turns seen ${report.turnsSeen}, checked ${report.turnsChecked}, lost ${report.turnsLost}`,
      );
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return report;
}
