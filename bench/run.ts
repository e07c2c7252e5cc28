// `npm run bench [-- --quick] [-- --only a,b]`: runs the scenarios one after another, then writes
// bench/results/<timestamp>.json, .md (also printed) and .svg (latency against session count).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError } from "../src/host-options.js";
import { flagsHelp, parseFlags } from "../src/flags.js";
import { latencyChart } from "./chart.js";
import { isSkipped, type BenchContext } from "./context.js";
import { incidents } from "./incidents.js";
import { markdownReport } from "./report.js";
import type { BenchResults, ScenarioResults } from "./results-types.js";
import { bashSpawn } from "./scenarios/bash-spawn.js";
import { fanOut } from "./scenarios/fan-out.js";
import { fork } from "./scenarios/fork.js";
import { fleet } from "./scenarios/fleet.js";
import { flood } from "./scenarios/flood.js";
import { mcp } from "./scenarios/mcp.js";
import { list } from "./scenarios/list.js";
import { noisyNeighbour } from "./scenarios/noisy-neighbour.js";
import { openAi } from "./scenarios/openai.js";
import { remote } from "./scenarios/remote.js";
import { restore } from "./scenarios/restore.js";
import { rss } from "./scenarios/rss.js";
import { scale } from "./scenarios/scale.js";
import { sessionNew } from "./scenarios/session-new.js";
import { socketFlood } from "./scenarios/socket-flood.js";
import { teardown } from "./scenarios/teardown.js";
import { throughput } from "./scenarios/throughput.js";
import { tracing } from "./scenarios/tracing.js";
import { workerStart } from "./scenarios/worker-start.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const SCENARIOS: {
  [K in keyof ScenarioResults]: { flag: string; run: (ctx: BenchContext) => Promise<ScenarioResults[K]> };
} = {
  workerStart: { flag: "worker-start", run: workerStart },
  throughput: { flag: "throughput", run: throughput },
  sessionNew: { flag: "session-new", run: sessionNew },
  rss: { flag: "rss", run: rss },
  scale: { flag: "scale", run: scale },
  noisyNeighbour: { flag: "noisy-neighbour", run: noisyNeighbour },
  bashSpawn: { flag: "bash-spawn", run: bashSpawn },
  teardown: { flag: "teardown", run: teardown },
  openAi: { flag: "openai", run: openAi },
  remote: { flag: "remote", run: remote },
  mcp: { flag: "mcp", run: mcp },
  restore: { flag: "restore", run: restore },
  list: { flag: "list", run: list },
  fleet: { flag: "fleet", run: fleet },
  flood: { flag: "flood", run: flood },
  fork: { flag: "fork", run: fork },
  fanOut: { flag: "fan-out", run: fanOut },
  tracing: { flag: "tracing", run: tracing },
  socketFlood: { flag: "socket-flood", run: socketFlood },
};
const NAMES = Object.values(SCENARIOS).map((s) => s.flag);

const flag = z.union([z.boolean(), z.enum(["true", "false"])]).transform((v) => v === true || v === "true");
const BenchFlags = z.object({
  quick: flag
    .default(false)
    .describe("fewer runs and smaller sizes of every scenario: within two minutes on two cores"),
  only: z
    .string()
    .optional()
    .refine(
      (v) => v === undefined || v.split(",").every((name) => NAMES.includes(name.trim())),
      `names a scenario other than ${NAMES.join(", ")}`,
    )
    .describe(`comma-separated scenarios to run (${NAMES.join(", ")}); default all`),
  out: z.string().default("bench/results").describe("directory of the result files, relative to the package root"),
});

async function main(argv: string[]): Promise<void> {
  if (argv.includes("--help")) {
    process.stdout.write(`usage: npm run bench [-- flags]\n\nflags:\n${flagsHelp(BenchFlags)}\n`);
    return;
  }
  const flags = parseFlags(BenchFlags, argv);
  const only = flags.only?.split(",").map((name) => name.trim());
  const cwd = mkdtempSync(join(tmpdir(), "ash-bench-"));
  const ctx: BenchContext = { quick: flags.quick, cwd, log: (message) => process.stderr.write(`bench: ${message}\n`) };
  const started = new Date();
  const startedMs = performance.now();
  const loadAtStart = loadavg()[0]!;
  const dir = resolve(ROOT, flags.out);
  mkdirSync(dir, { recursive: true });
  const stamp = started.toISOString().replace(/[:.]/g, "-");
  const base = join(dir, stamp);
  const scenarios: Partial<ScenarioResults> = {};
  const results = (): BenchResults => ({
    startedAt: started.toISOString(),
    durationS: (performance.now() - startedMs) / 1000,
    quick: flags.quick,
    command: `npm run bench${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
      node: process.version,
      platform: process.platform,
      kernel: release(),
    },
    loadAverage: { start: loadAtStart, end: loadavg()[0]! },
    git: gitState(),
    scenarios,
    incidents: incidents(),
  });
  try {
    for (const [key, scenario] of Object.entries(SCENARIOS) as Array<
      [keyof ScenarioResults, (typeof SCENARIOS)[keyof ScenarioResults]]
    >) {
      if (only && !only.includes(scenario.flag)) continue;
      ctx.log(`${scenario.flag}: starting`);
      const t0 = performance.now();
      try {
        const outcome = await scenario.run(ctx);
        (scenarios as Record<string, unknown>)[key] = outcome;
        if (isSkipped(outcome)) ctx.log(`${scenario.flag}: skipped: ${outcome.skipped}`);
      } catch (error) {
        (scenarios as Record<string, unknown>)[key] = { failed: (error as Error).stack ?? String(error) };
        ctx.log(`${scenario.flag}: failed: ${(error as Error).message}`);
      }
      ctx.log(`${scenario.flag}: done in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      // What is measured so far survives an interrupted run (git ignores *.tmp).
      writeFileSync(`${base}.json.tmp`, `${JSON.stringify(results(), null, 2)}\n`);
    }
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }

  const final = results();
  const markdown = markdownReport(final);
  writeFileSync(`${base}.json`, `${JSON.stringify(final, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  rmSync(`${base}.json.tmp`, { force: true });
  const written = [`${base}.json`, `${base}.md`];
  const t = scenarios.throughput;
  if (t && !isSkipped(t) && !("failed" in t)) {
    writeFileSync(`${base}.svg`, latencyChart(t, `Prompt latency against sessions: host vs floor (${stamp})`));
    written.push(`${base}.svg`);
  }
  process.stdout.write(markdown);
  ctx.log(`wrote ${written.map((file) => relative(ROOT, file)).join(", ")}`);
}

function gitState(): BenchResults["git"] {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
    const dirty = execFileSync("git", ["status", "--porcelain"], { cwd: ROOT, encoding: "utf8" }).trim().length > 0;
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`bench: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
});
