// The one way the host ends (stdin closed, SIGTERM, SIGINT, a broken stdout): refuse new work, answer every prompt
// in flight as cancelled, end every worker, end every command, flush logs. Named phases, each with a deadline,
// so no state a session can be in (waking, waiting for a slot, mid-restore, mid-replay) holds the exit.
import type { OpsHost } from "./ops-host.js";

export interface TeardownPhases {
  /** Resolves once every frame handed to the client's connection has been written. */
  drained(): Promise<void>;
  /** Ends the spawner and every command and sandbox under it. */
  endCommands(): Promise<void>;
  /** Ends what else lives outside the session workers (listeners, timers). */
  finish(): Promise<void>;
}

/**
 * Phases of one stage run at once: none needs another's end, and the host's exit waits for the slowest (ending two
 * hundred threads), so running them one after another would add the others to it.
 */
const STAGES = [
  [
    { name: "answer", deadlineMs: 3000 },
    { name: "release", deadlineMs: 3000 },
    { name: "commands", deadlineMs: 3000 },
  ],
  // After the answers: a remote listener closes its connections here.
  [{ name: "finish", deadlineMs: 3000 }],
] as const;

/** How long the threads and commands wait for the answers to be written. */
const ANSWERS_FIRST_MS = 200;

/** Within the finish phase's deadline. */
const TRACE_FLUSH_MS = 2500;

type PhaseName = (typeof STAGES)[number][number]["name"];

export function createTeardown(host: OpsHost, phases: TeardownPhases): (reason: string) => Promise<void> {
  let running: Promise<void> | null = null;
  return (reason) => {
    running ??= (async () => {
      const started = performance.now();
      host.admission.stopAccepting();
      host.idleCollector.stop();
      host.logger.info(
        { reason, sessions: host.sessions.size, answersInFlight: host.answersInFlight.size },
        "teardown started",
      );
      if (host.store.shared) await drain(host);
      // Closing settles each session's prompt as cancelled at once and ends its worker without a dispose grace:
      // its log holds every turn the client saw end (fsynced at turn end), and the turn in flight is closed as
      // interrupted when the session is next opened. Asked to dispose, two hundred workers would spend the CPU their
      // ending needs.
      host.followed?.stopAll();
      // Every prompt is answered, its frame written, before a thread or a command is ended: ending a thread takes a
      // core for a while, and the threads of two hundred sessions, ended in the loop that settled their prompts, left
      // the main thread little of the machine for the answers still to be settled and written.
      let answersOut = (): void => {};
      const ending = new Promise<void>((resolve) => (answersOut = resolve));
      const closed = Promise.allSettled([...host.sessions.values()].map((session) => session.close(0, ending)));
      const answered = (async () => {
        await Promise.allSettled([...host.answersInFlight]);
        await phases.drained();
      })();
      // A client that reads nothing holds the answers, not the end of what runs.
      void withDeadline(answered, ANSWERS_FIRST_MS).then(answersOut);
      // The spawner ends beside the workers, not after them. Told after the workers: a worker that saw its
      // sandbox go would wake to say so.
      const commands = ending.then(() => phases.endCommands());
      const work: Record<PhaseName, () => Promise<unknown>> = {
        answer: () => answered,
        release: async () => {
          await closed;
          await Promise.all([host.pool.destroy(), host.gateway?.close()]);
        },
        commands: () => commands,
        // Last: the store gives up what this host still holds (a shared store's leases) once every session has closed.
        // The turns' spans ended with their answers: what the exporter still holds goes out within the phase.
        finish: () =>
          Promise.all([
            phases.finish(),
            host.store.flushed().then(() => host.store.close()),
            host.tracing?.shutdown(TRACE_FLUSH_MS),
          ]),
      };
      for (const stage of STAGES) {
        await Promise.all(
          stage.map(async (phase) => {
            const t0 = performance.now();
            const outcome = await withDeadline(work[phase.name](), phase.deadlineMs);
            const ms = Math.round(performance.now() - t0);
            if (outcome === "late")
              host.logger.warn({ phase: phase.name, ms }, "teardown phase passed its deadline: going on");
            else if (outcome instanceof Error)
              host.logger.warn({ phase: phase.name, err: outcome }, "teardown phase failed: going on");
            else host.logger.debug({ phase: phase.name, ms }, "teardown phase done");
          }),
        );
      }
      host.logger.info({ reason, ms: Math.round(performance.now() - started) }, "teardown finished");
      host.logger.flush();
    })();
    return running;
  };
}

/**
 * A host on a store shared by a fleet lets its turns in flight end (up to --drain-ms) before it closes its sessions:
 * their clients get their answers, and the hosts that take the sessions over find them idle.
 */
async function drain(host: OpsHost): Promise<void> {
  const t0 = performance.now();
  const busy = [...host.sessions.values()].filter((session) => session.busy);
  const outcome = await withDeadline(Promise.all(busy.map((session) => session.whenIdle())), host.config.drainMs);
  host.logger.info(
    { busy: busy.length, ms: Math.round(performance.now() - t0), cut: outcome === "late" },
    "drain: turns in flight ended",
  );
}

async function withDeadline(work: Promise<unknown>, ms: number): Promise<"done" | "late" | Error> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  try {
    return await Promise.race([
      work.then(
        () => "done" as const,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
