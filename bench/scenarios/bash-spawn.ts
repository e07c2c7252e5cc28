// Scenario 5: bash spawn latency (`true` through the bash tool, from its tool_call to its completion as the client
// sees it) with 1 live session and with 200 (50 in quick mode), one call at a time, then all of them at once. A
// session's first command starts its sandbox, so first commands are timed apart from those of live sessions (whose
// sandbox is up).
import { probeBash, timedBashCall } from "../support/bash.js";
import type { BenchContext, Skipped } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { figure, summarize, type Figure } from "../support/stats.js";
import { openSessions, startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

/** Live sessions not sampled get their first command this many at a time, untimed, before the live samples. */
const WARM_AT_ONCE = 8;

export interface BashSpawnResult {
  runs: number;
  samples: number;
  liveSessions: number;
  oneLive: { toolP50: Figure; toolP99: Figure };
  /** A session's first command: it starts the session's sandbox. */
  firstCommand: { toolP50: Figure; toolP99: Figure };
  manyLive: { toolP50: Figure; toolP99: Figure; promptP50: Figure };
  burst: { toolP50: Figure; toolP99: Figure; allDoneMs: Figure; failed: Figure };
  /** What the failed burst calls said (a few distinct messages). */
  burstFailures: string[];
}

export async function bashSpawn(ctx: BenchContext): Promise<BashSpawnResult | Skipped> {
  // Quick mode is a smoke run: fewer live sessions (the report names the count).
  const LIVE = ctx.quick ? 20 : 200;
  const runs = ctx.quick ? 1 : 2;
  const samples = ctx.quick ? 10 : 40;
  let skipped: string | null = null;
  const results = await repeat(ctx, `bash spawn with ${LIVE} live sessions`, runs, async () =>
    withSystem(
      startHost(["--default-mode", "auto", "--max-live-workers", String(LIVE + 8)]),
      async ({ client, pid }) => {
        const [first] = await openSessions(client, 1, ctx.cwd);
        skipped = await probeBash(client, first!);
        if (skipped) return null;
        await waitForIdle(pid);
        const one = await sequential(client, [first!], samples);

        const ids = [first!, ...(await openSessions(client, LIVE - 1, ctx.cwd))];
        await waitForIdle(pid);
        const firstCalls = await sequential(client, ids.slice(1, samples + 1), samples);
        for (let i = samples + 1; i < ids.length; i += WARM_AT_ONCE) {
          await Promise.all(ids.slice(i, i + WARM_AT_ONCE).map((id) => timedBashCall(client, id, "true")));
        }
        await waitForIdle(pid);
        const many = await sequential(client, ids, samples);

        const started = performance.now();
        const burst = await Promise.all(ids.map((id) => timedBashCall(client, id, "true")));
        const allDoneMs = performance.now() - started;
        const burstTool = summarize(burst.map((b) => b.toolMs));
        const failures = [
          ...new Set(
            burst.filter((b) => b.status !== "completed").map((b) => `${b.status}: ${b.output.slice(0, 160)}`),
          ),
        ];
        return {
          one,
          firstCalls,
          many,
          burst: {
            toolP50: burstTool.p50,
            toolP99: burstTool.p99,
            allDoneMs,
            failed: burst.filter((b) => b.status !== "completed").length,
          },
          failures,
        };
      },
    ),
  );
  if (skipped) return { skipped };
  const done = results.filter((r) => r !== null);
  return {
    runs,
    samples,
    liveSessions: LIVE,
    oneLive: { toolP50: figure(done.map((r) => r.one.tool.p50)), toolP99: figure(done.map((r) => r.one.tool.p99)) },
    firstCommand: {
      toolP50: figure(done.map((r) => r.firstCalls.tool.p50)),
      toolP99: figure(done.map((r) => r.firstCalls.tool.p99)),
    },
    manyLive: {
      toolP50: figure(done.map((r) => r.many.tool.p50)),
      toolP99: figure(done.map((r) => r.many.tool.p99)),
      promptP50: figure(done.map((r) => r.many.prompt.p50)),
    },
    burst: {
      toolP50: figure(done.map((r) => r.burst.toolP50)),
      toolP99: figure(done.map((r) => r.burst.toolP99)),
      allDoneMs: figure(done.map((r) => r.burst.allDoneMs)),
      failed: figure(done.map((r) => r.burst.failed)),
    },
    burstFailures: [...new Set(done.flatMap((r) => r.failures))].slice(0, 3),
  };
}

/** `samples` bash calls one after another, round-robin over `ids`. */
async function sequential(client: Parameters<typeof timedBashCall>[0], ids: string[], samples: number) {
  const tool: number[] = [];
  const prompt: number[] = [];
  for (let i = 0; i < samples; i++) {
    const call = await timedBashCall(client, ids[(i * 7) % ids.length]!, "true");
    if (call.status !== "completed") throw new Error(`bash call ${call.status}`);
    tool.push(call.toolMs);
    prompt.push(call.promptMs);
  }
  return { tool: summarize(tool), prompt: summarize(prompt) };
}

export const scenario: Scenario<BashSpawnResult> = {
  order: 5,
  key: "bashSpawn",
  flag: "bash-spawn",
  title: "5. bash spawn latency",
  run: bashSpawn,
  section: (b) => [
    `${plural(b.runs, "run")}, ${b.samples} sequential \`true\` calls through the bash tool (mode auto), timed from the tool_call update to its completion as the client sees them. ` +
      `A session's first command starts its sandbox: first commands are timed on ${b.samples} fresh sessions among the ${b.liveSessions}; every live session has run one before the live samples.`,
    "",
    table(
      ["live sessions", "tool p50", "tool p99", "whole prompt p50"],
      [
        ["1", fmt(b.oneLive.toolP50), fmt(b.oneLive.toolP99), ""],
        [`${b.liveSessions}, first command`, fmt(b.firstCommand.toolP50), fmt(b.firstCommand.toolP99), ""],
        [String(b.liveSessions), fmt(b.manyLive.toolP50), fmt(b.manyLive.toolP99), fmt(b.manyLive.promptP50)],
      ],
    ),
    "",
    `All ${b.liveSessions} sessions at once: tool p50 ${fmt(b.burst.toolP50)}, p99 ${fmt(b.burst.toolP99)}, all done after ${fmt(b.burst.allDoneMs)} ms, ${fmt(b.burst.failed, 0)} failed${b.burstFailures.length ? ` (${b.burstFailures.map((f) => `"${f}"`).join(", ")})` : ""}.`,
  ],
};
