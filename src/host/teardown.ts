// The one way the host ends (stdin closed, SIGTERM, SIGINT, a broken stdout): refuse new work, answer every prompt
// in flight as cancelled, release every worker, end every command, flush logs. Named phases, each with a deadline,
// so no state a session can be in (waking, waiting for a slot, mid-restore, mid-replay) holds the exit.
import type { HostContext } from "./host-context.js";

const DISPOSE_GRACE_MS = 250;

export interface TeardownPhases {
  /** Resolves once every frame handed to the client's connection has been written. */
  drained(): Promise<void>;
  /** Ends what lives outside the session workers (the spawner and its process groups). */
  finish(): Promise<void>;
}

const PHASES = [
  { name: "answer", deadlineMs: 3000 },
  { name: "release", deadlineMs: 3000 },
  { name: "finish", deadlineMs: 3000 },
] as const;

export function createTeardown(host: HostContext, phases: TeardownPhases): (reason: string) => Promise<void> {
  let running: Promise<void> | null = null;
  return (reason) => {
    running ??= (async () => {
      const started = performance.now();
      host.stopAccepting();
      host.log.info({ reason, sessions: host.sessions.size, prompts: host.prompts.size }, "teardown started");
      // Closing settles each session's prompt as cancelled at once; the workers are released behind it.
      const closed = Promise.allSettled([...host.sessions.values()].map((session) => session.close(DISPOSE_GRACE_MS)));
      const work: Record<(typeof PHASES)[number]["name"], () => Promise<unknown>> = {
        answer: async () => {
          await Promise.allSettled([...host.prompts]);
          await phases.drained();
        },
        release: async () => {
          await closed;
          await host.pool.destroy();
        },
        finish: () => Promise.all([phases.finish(), host.store.flushed()]),
      };
      for (const phase of PHASES) {
        const t0 = performance.now();
        const outcome = await withDeadline(work[phase.name](), phase.deadlineMs);
        const ms = Math.round(performance.now() - t0);
        if (outcome === "late") host.log.warn({ phase: phase.name, ms }, "teardown phase passed its deadline: going on");
        else if (outcome instanceof Error) host.log.warn({ phase: phase.name, err: outcome }, "teardown phase failed: going on");
        else host.log.debug({ phase: phase.name, ms }, "teardown phase done");
      }
      host.log.info({ reason, ms: Math.round(performance.now() - started) }, "teardown finished");
      host.log.flush();
    })();
    return running;
  };
}

async function withDeadline(work: Promise<unknown>, ms: number): Promise<"done" | "late" | Error> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  try {
    return await Promise.race([work.then(() => "done" as const, (error: unknown) => (error instanceof Error ? error : new Error(String(error)))), late]);
  } finally {
    clearTimeout(timer);
  }
}
