// Scenario 6: teardown of 200 busy sessions (stdin closed while every session is mid-turn: half sleeping in the
// model, half in a bash `sleep 30` when the bash tool exists), and what is left running afterwards.
import { bashScript, probeBash } from "../bash.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { descendants, isAlive } from "../proc.js";
import { figure, type Figure } from "../stats.js";
import { openSessions, sleep, startHost } from "../systems.js";

const SESSIONS = 200;

export interface TeardownResult {
  runs: number;
  sessions: number;
  /** Sessions mid-turn in bash (0 when the bash tool is not available). */
  inBash: number;
  bashSkipped: string | null;
  /** From closing the host's stdin to its exit. */
  teardownMs: Figure;
  /** Processes under the host just before teardown (bash children, sandboxes, helpers). */
  processesBefore: Figure;
  /** Of those, still alive after the host exited (plus any descendant of a still-running host). */
  processesLeft: Figure;
  /** Pending prompts answered "cancelled" before the host exited (the rest saw the connection close). */
  cancelledAnswers: Figure;
  exitCodes: Array<number | null>;
}

export async function teardown(ctx: BenchContext): Promise<TeardownResult> {
  const runs = ctx.quick ? 1 : 3;
  let bashSkipped: string | null = null;
  const results = await repeat(ctx, `teardown of ${SESSIONS} busy sessions`, runs, async () => {
    const host = await startHost(["--default-mode", "auto", "--max-live-workers", String(SESSIONS + 8)]);
    const { client, pid } = host;
    try {
      const ids = await openSessions(client, SESSIONS, ctx.cwd);
      bashSkipped = await probeBash(client, ids[0]!);
      const inBash = bashSkipped === null ? SESSIONS / 2 : 0;
      let cancelled = 0;
      const pending = ids.map((id, i) =>
        client
          .prompt(id, i < inBash ? bashScript("sleep 30") : `/script [{"sleep_ms":30000}]`)
          .then((r) => void (r.stopReason === "cancelled" && cancelled++))
          .catch(() => {}),
      );
      await waitUntilBusy(client, SESSIONS, inBash, pid);
      const before = descendants(pid);
      let exitedAt = Number.NaN;
      host.client.child!.once("exit", () => (exitedAt = performance.now()));
      const started = performance.now();
      const code = await host.dispose(60_000);
      const teardownMs = exitedAt - started;
      await Promise.all(pending);
      await sleep(200); // let the kernel reap what was killed
      const left = before.filter(isAlive).length;
      return { teardownMs, before: before.length, left, cancelled, code, inBash };
    } catch (error) {
      await host.dispose(10_000);
      throw error;
    }
  });
  return {
    runs,
    sessions: SESSIONS,
    inBash: results[0]?.inBash ?? 0,
    bashSkipped,
    teardownMs: figure(results.map((r) => r.teardownMs)),
    processesBefore: figure(results.map((r) => r.before)),
    processesLeft: figure(results.map((r) => r.left)),
    cancelledAnswers: figure(results.map((r) => r.cancelled)),
    exitCodes: results.map((r) => r.code),
  };
}

/** Waits until every session is mid-turn and, when some run bash, until their processes exist. */
async function waitUntilBusy(client: Parameters<typeof probeBash>[0], sessions: number, inBash: number, pid: number): Promise<void> {
  const deadline = performance.now() + 60_000;
  while (performance.now() < deadline) {
    const stats = await client.stats();
    if (stats.sessions.busy >= sessions && descendants(pid).length >= inBash) return;
    await sleep(100);
  }
  throw new Error("the sessions did not all become busy within 60 s");
}
