// Scenario 6: teardown of 200 busy sessions, every one mid-turn (half in a bash `sleep 30` when the bash tool exists,
// the rest sleeping in the model), ended the two ways an orchestrator ends a host: SIGTERM, and closing its stdin
// (what HostClient.dispose does). Timed to the host's exit; what is left of what ran under it, at that moment.
import { bashScript, probeBash } from "../support/bash.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { descendantIdentities, descendants, stillThere } from "../support/proc.js";
import { figure, type Figure } from "../support/stats.js";
import { openSessions, sleep, startHost } from "../support/systems.js";
import { fmt, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

type Ending = "SIGTERM" | "stdin closed";

export interface TeardownRow {
  ending: Ending;
  runs: number;
  /** From the signal or the end of stdin to the host's exit. */
  teardownMs: Figure;
  /** Processes under the host just before teardown (bash commands, their sandboxes, the spawner). */
  processesBefore: Figure;
  /** Of those, still in the process table (zombies too) when the host's exit is seen. */
  processesLeft: Figure;
  /** Pending prompts answered "cancelled" before the host exited (the others saw the connection close). */
  cancelledAnswers: Figure;
  exitCodes: Array<number | null>;
}

export interface TeardownResult {
  sessions: number;
  /** Sessions mid-turn in bash (0 when the bash tool is not available). */
  inBash: number;
  bashSkipped: string | null;
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
  let inBash = 0;
  const rows: TeardownRow[] = [];
  for (const [ending, runs] of plan) {
    const results = await repeat(ctx, `teardown of ${SESSIONS} busy sessions by ${ending}`, runs, async () => {
      const host = await startHost(["--default-mode", "auto", "--max-live-workers", String(SESSIONS + 8)]);
      const { client, pid } = host;
      const child = client.child!;
      try {
        const ids = await openSessions(client, SESSIONS, ctx.cwd);
        bashSkipped = await probeBash(client, ids[0]!);
        inBash = bashSkipped === null ? SESSIONS / 2 : 0;
        let cancelled = 0;
        const pending = ids.map((id, i) =>
          client
            .prompt(id, i < inBash ? bashScript("sleep 30") : `/script [{"sleep_ms":30000}]`)
            .then((r) => void (r.stopReason === "cancelled" && cancelled++))
            .catch(() => {}),
        );
        await waitUntilBusy(client, SESSIONS, inBash, pid);
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
        return { teardownMs, before: before.length, left: left.length, cancelled, code };
      } finally {
        await host.dispose(10_000);
      }
    });
    rows.push({
      ending,
      runs,
      teardownMs: figure(results.map((r) => r.teardownMs)),
      processesBefore: figure(results.map((r) => r.before)),
      processesLeft: figure(results.map((r) => r.left)),
      cancelledAnswers: figure(results.map((r) => r.cancelled)),
      exitCodes: results.map((r) => r.code),
    });
  }
  return { sessions: SESSIONS, inBash, bashSkipped, rows };
}

/** Waits until every session is mid-turn and, when some run bash, until their processes exist. */
export async function waitUntilBusy(
  client: Parameters<typeof probeBash>[0],
  sessions: number,
  inBash: number,
  pid: number,
): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const stats = await client.stats();
    if (stats.sessions.busy >= sessions && descendants(pid).length >= inBash) return;
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
      ', then the host is ended; timed to its exit. "Left" counts what ran under the host and is still alive after it.',
    "",
    table(
      [
        "ended by",
        "runs",
        "teardown ms",
        "processes under the host",
        "left afterwards",
        "prompts answered cancelled",
        "exit codes",
      ],
      t.rows.map((r) => [
        r.ending,
        String(r.runs),
        fmt(r.teardownMs),
        fmt(r.processesBefore, 0),
        fmt(r.processesLeft, 0),
        fmt(r.cancelledAnswers, 0),
        r.exitCodes.join(", "),
      ]),
    ),
  ],
};
