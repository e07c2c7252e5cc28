// Scenario 6: teardown of 200 busy sessions, every one mid-turn (half in a bash `sleep 30` when the bash tool exists,
// the rest sleeping in the model), ended the two ways an orchestrator ends a host: SIGTERM, and closing its stdin
// (what HostClient.dispose does). Timed to the host's exit; what is left of what ran under it, at that moment. After
// each SIGTERM run, the floor of issue 54 in the same run: a process of its own holding as many bare threads, sandboxes
// and processes as the host had, ended at once (bench/processes/teardown-floor.ts), timed the same way.
import { bashScript, probeBash } from "../support/bash.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { countNamed, descendantIdentities, sandboxCount, stillThere } from "../support/proc.js";
import { figure, type Figure } from "../support/stats.js";
import { openSessions, sleep, startHost } from "../support/systems.js";
import { fmt, table, xFigure } from "../support/markdown.js";
import { runTeardownFloor, type FloorRun } from "../support/teardown-floor-process.js";
import type { Scenario } from "../scenario.js";

type Ending = "SIGTERM" | "stdin closed";

export interface TeardownRow {
  ending: Ending;
  runs: number;
  /** From the signal or the end of stdin to the host's exit. */
  teardownMs: Figure;
  /** From the signal or the end of stdin to the last pending prompt's "cancelled" answer. */
  lastAnswerMs: Figure;
  /** The floor's SIGTERM to its exit, run right after each host run; null where not measured (stdin closed). */
  floorMs: Figure | null;
  /** teardownMs / floorMs, run by run. */
  exitOverFloor: Figure | null;
  /** Processes under the floor when it was signalled, and of those still there at its exit. */
  floorProcesses: Figure | null;
  floorLeft: Figure | null;
  /** Processes under the host just before teardown (bash commands, their sandboxes, the spawner). */
  processesBefore: Figure;
  /** Of those, still in the process table (zombies too) when the host's exit is seen. */
  processesLeft: Figure;
  /** Session worker threads (stats.threads.workers) and sandboxes under the host just before teardown: the floor's. */
  threads: Figure;
  sandboxes: Figure;
  /** Pending prompts answered "cancelled" before the host exited (the others saw the connection close). */
  cancelledAnswers: Figure;
  exitCodes: Array<number | null>;
}

export interface TeardownResult {
  sessions: number;
  /** Sessions mid-turn in bash (0 when the bash tool is not available). */
  inBash: number;
  bashSkipped: string | null;
  /** Why the floor held plain `sleep` process groups rather than sandboxes; null when it held sandboxes. */
  floorPlainOnly: string | null;
  rows: TeardownRow[];
}

export async function teardown(ctx: BenchContext): Promise<TeardownResult> {
  const SESSIONS = ctx.quick ? 20 : 200; // quick mode is a smoke run
  // Each run opens 200 sessions (minutes of CPU on a small machine): SIGTERM, the orchestrator's usual end, gets two.
  const plan: Array<[Ending, number]> = ctx.quick
    ? [
        ["SIGTERM", 1],
        ["stdin closed", 1],
      ]
    : [
        ["SIGTERM", 2],
        ["stdin closed", 1],
      ];
  let bashSkipped: string | null = null;
  let floorPlainOnly: string | null = null;
  const rows: TeardownRow[] = [];
  for (const [ending, runs] of plan) {
    const results = await repeat(ctx, `teardown of ${SESSIONS} busy sessions by ${ending}`, runs, async () => {
      const host = await hostRun(ctx, SESSIONS, ending);
      bashSkipped = host.bashSkipped;
      // Right after the host's run, on the machine it left: as many threads, sandboxes and processes as it held.
      const floor =
        ending === "SIGTERM" ? await runTeardownFloor(host.threads, host.before, host.sandboxes, ctx.cwd) : null;
      floorPlainOnly ??= floor?.plainOnly ?? null;
      return { ...host, floor };
    });
    const floors = results.map((r) => r.floor).filter((f): f is FloorRun => f !== null);
    const floorFigure = (pick: (f: FloorRun) => number) => (floors.length > 0 ? figure(floors.map(pick)) : null);
    rows.push({
      ending,
      runs,
      teardownMs: figure(results.map((r) => r.teardownMs)),
      lastAnswerMs: figure(results.map((r) => r.lastAnswerMs)),
      floorMs: floorFigure((f) => f.ms),
      exitOverFloor: floors.length > 0 ? figure(results.map((r) => r.teardownMs / (r.floor?.ms ?? Number.NaN))) : null,
      floorProcesses: floorFigure((f) => f.processes),
      floorLeft: floorFigure((f) => f.left),
      processesBefore: figure(results.map((r) => r.before)),
      processesLeft: figure(results.map((r) => r.left)),
      threads: figure(results.map((r) => r.threads)),
      sandboxes: figure(results.map((r) => r.sandboxes)),
      cancelledAnswers: figure(results.map((r) => r.cancelled)),
      exitCodes: results.map((r) => r.code),
    });
  }
  const inBash = bashSkipped === null ? SESSIONS / 2 : 0;
  return { sessions: SESSIONS, inBash, bashSkipped, floorPlainOnly, rows };
}

interface HostRun {
  bashSkipped: string | null;
  teardownMs: number;
  lastAnswerMs: number;
  /** Session worker threads, sandboxes and processes under the host just before it was ended. */
  threads: number;
  sandboxes: number;
  before: number;
  left: number;
  cancelled: number;
  code: number | null;
}

/** One host with `sessions` busy sessions, ended by `ending`. */
async function hostRun(ctx: BenchContext, sessions: number, ending: Ending): Promise<HostRun> {
  const host = await startHost(["--default-mode", "auto", "--max-live-workers", String(sessions + 8)]);
  const { client, pid } = host;
  const child = client.child!;
  try {
    const ids = await openSessions(client, sessions, ctx.cwd);
    const bashSkipped = await probeBash(client, ids[0]!);
    const inBash = bashSkipped === null ? sessions / 2 : 0;
    let cancelled = 0;
    let lastCancelledAt = Number.NaN;
    const pending = ids.map((id, i) =>
      client
        .prompt(id, i < inBash ? bashScript("sleep 30") : `/script [{"sleep_ms":30000}]`)
        .then((r) => {
          if (r.stopReason !== "cancelled") return;
          cancelled++;
          lastCancelledAt = performance.now();
        })
        .catch(() => {}),
    );
    await waitUntilBusy(client, sessions, inBash, pid);
    const threads = (await client.stats()).threads.workers;
    const sandboxes = sandboxCount(pid);
    const before = descendantIdentities(pid);
    const exited = new Promise<[number | null, string[]]>((resolve) =>
      child.once("exit", (code) => resolve([code, stillThere(before)])),
    );
    const started = performance.now();
    if (ending === "SIGTERM") child.kill("SIGTERM");
    else child.stdin!.end();
    const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const [code, left] = await exited;
    const teardownMs = performance.now() - started;
    clearTimeout(killer);
    await Promise.all(pending);
    return {
      bashSkipped,
      teardownMs,
      lastAnswerMs: lastCancelledAt - started,
      threads,
      sandboxes,
      before: before.length,
      left: left.length,
      cancelled,
      code,
    };
  } finally {
    await host.dispose(10_000);
  }
}

/**
 * Waits until every session is mid-turn and, when some run bash, until each one's `sleep` runs (a count of any
 * processes under the host was reached while sandboxes were still starting).
 */
export async function waitUntilBusy(
  client: Parameters<typeof probeBash>[0],
  sessions: number,
  inBash: number,
  pid: number,
): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const stats = await client.stats();
    if (stats.sessions.busy >= sessions && countNamed(pid, "sleep") >= inBash) return;
    await sleep(100);
  }
  throw new Error("the sessions did not all become busy within 60 s");
}

export const scenario: Scenario<TeardownResult> = {
  order: 6,
  key: "teardown",
  flag: "teardown",
  title: "6. Teardown of busy sessions",
  run: teardown,
  section: (t) => [
    `${t.sessions} sessions mid-turn (${t.inBash} in a bash \`sleep 30\`, the rest sleeping in the model)` +
      (t.bashSkipped ? ` — bash part skipped: ${t.bashSkipped}` : "") +
      ', then the host is ended; timed to its exit. "Left" counts what ran under the host and is still alive after it. ' +
      "The floor, run right after each SIGTERM run: a process holding as many bare worker threads as the host had " +
      "session threads, one sandbox per sandbox of the host (bwrap as the spawner starts it, `sleep 30` through its " +
      "exec helper) and plain `sleep 30` process groups for the rest of the host's process count, ended at once on " +
      "SIGTERM (every sandbox's init and every group SIGKILLed, every thread terminated, all reaped), timed the same way" +
      (t.floorPlainOnly ? ` — no sandboxes in the floor: ${t.floorPlainOnly}` : "") +
      ". Exit / floor is run by run.",
    "",
    "Goals (issue 54): every prompt answered ≤ 300 ms after SIGTERM; exit ≤ 1.2× the floor.",
    "",
    table(
      [
        "ended by",
        "runs",
        "teardown ms",
        "last answer after the signal, ms",
        "floor ms",
        "exit / floor",
        "processes under the host / the floor",
        "left afterwards (host / floor)",
        "prompts answered cancelled",
        "exit codes",
      ],
      t.rows.map((r) => [
        r.ending,
        String(r.runs),
        fmt(r.teardownMs),
        fmt(r.lastAnswerMs),
        r.floorMs ? fmt(r.floorMs) : "–",
        r.exitOverFloor ? xFigure(r.exitOverFloor) : "–",
        `${fmt(r.processesBefore, 0)} / ${r.floorProcesses ? fmt(r.floorProcesses, 0) : "–"}`,
        `${fmt(r.processesLeft, 0)} / ${r.floorLeft ? fmt(r.floorLeft, 0) : "–"}`,
        fmt(r.cancelledAnswers, 0),
        r.exitCodes.join(", "),
      ]),
    ),
  ],
};
