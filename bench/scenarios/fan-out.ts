// Scenario 14: a parent fanning out to child sessions against a client doing the same itself. One host; each sample
// either prompts a fresh parent whose one answer asks for 8 children (spawn_agent, run at once), each running an echo
// turn, timed to the parent's answer; or makes 8 sessions from the client (session/new, then a prompt, all at once),
// timed to the last answer. Samples alternate, and each starts on a quiet host with 9 started workers on standby
// (--warm-workers 9), so neither pays for the thread starts the other's burst left to do: the refill they cause comes
// once leases pause, and an idle process alone did not say it had come (a parent's children then waited for threads
// still starting: 550 ms against 145).
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { figures, median, ratio, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { waitFor } from "../../test/support/tools.js";
import { fmt, plural, table, x } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const CHILDREN = 8;

export interface FanOutResult {
  runs: number;
  samples: number;
  children: number;
  parentMs: Figure;
  clientMs: Figure;
  /** parent/client of the medians. */
  ratio: number;
}

const parentScript = () =>
  `/script ${JSON.stringify([
    { tools: Array.from({ length: CHILDREN }, (_, i) => ({ tool: "spawn_agent", input: { prompt: `errand ${i}` } })) },
    { say: "all errands done" },
  ])}`;

export async function fanOut(ctx: BenchContext): Promise<FanOutResult> {
  const runs = ctx.quick ? 1 : 3;
  const samples = ctx.quick ? 1 : 9;
  const measured = await repeat(
    ctx,
    `fan-out: a parent to ${CHILDREN} children against ${CHILDREN} sessions from the client`,
    runs,
    () =>
      withSystem(
        startHost(["--max-children", String(CHILDREN * 2), "--warm-workers", String(CHILDREN + 1)]),
        async ({ client, pid }) => {
          const settled = async () => {
            await waitFor(
              "the standby pool to be full",
              async () => (await client.stats()).threads.standby >= CHILDREN + 1,
              30_000,
            );
            await waitForIdle(pid);
          };
          await settled();
          const parent = async () => {
            const { sessionId } = await client.newSession(ctx.cwd);
            await client.prompt(sessionId, "warm up");
            await settled();
            const sent = performance.now();
            const turn = await client.prompt(sessionId, parentScript());
            const ms = performance.now() - sent;
            if (turn.text !== "all errands done" || turn.children.length !== CHILDREN)
              throw new Error(`fan-out: unexpected answer ${JSON.stringify(turn.text)}`);
            await client.close(sessionId);
            return ms;
          };
          const direct = async () => {
            await settled();
            const sent = performance.now();
            const ids = await Promise.all(
              Array.from({ length: CHILDREN }, async (_, i) => {
                const { sessionId } = await client.newSession(ctx.cwd);
                const turn = await client.prompt(sessionId, `errand ${i}`);
                if (turn.text !== `You said: errand ${i}`)
                  throw new Error(`fan-out: unexpected answer ${JSON.stringify(turn.text)}`);
                return sessionId;
              }),
            );
            const ms = performance.now() - sent;
            await Promise.all(ids.map((id) => client.close(id)));
            return ms;
          };
          // One of each first: the first children and sessions pay for the code each path loads.
          await parent();
          await direct();
          const parentTimes: number[] = [];
          const clientTimes: number[] = [];
          for (let i = 0; i < samples; i++) {
            parentTimes.push(await parent());
            clientTimes.push(await direct());
          }
          return { parentMs: median(parentTimes), clientMs: median(clientTimes) };
        },
      ),
  );
  const figured = figures(measured, ["parentMs", "clientMs"] as const);
  return { runs, samples, children: CHILDREN, ...figured, ratio: ratio(figured.parentMs, figured.clientMs) };
}

export const scenario: Scenario<FanOutResult> = {
  order: 15,
  key: "fanOut",
  flag: "fan-out",
  title: "15. A parent fanning out to child sessions",
  run: fanOut,
  section: (f) => [
    `${plural(f.runs, "run")} of ${f.samples} samples each. parent: one prompt whose answer asks for ${f.children} children at once (spawn_agent), each running an echo turn in a worker of its own, ` +
      `timed to the parent's answer; client: ${f.children} × (session/new, then an echo prompt) from the client, all at once, timed to the last answer. ` +
      `Samples alternate; each starts on a quiet host with ${f.children + 1} started workers on standby.`,
    "",
    table(
      ["path", "ms", "goal"],
      [
        ["parent fans out", fmt(f.parentMs), ""],
        ["client makes them", fmt(f.clientMs), ""],
        ["parent/client", x(f.ratio), "≤ 1.2×"],
      ],
    ),
  ],
};
