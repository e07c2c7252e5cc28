// `npm run bench [-- --quick] [-- --only a,b]`: runs the scenarios one after another, then writes
// bench/results/<timestamp>.json, .md (also printed) and .svg (latency against session count). BENCH_NODE, the path of
// another node binary, gives the worker-start scenario a second Node's column (bench/support/bench-node.ts).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, tmpdir, totalmem } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError } from "../src/host-options.js";
import { flagsHelp, parseFlags } from "../src/flags.js";
import { isSkipped, type BenchContext } from "./context.js";
import { incidents } from "./support/incidents.js";
import { markdownReport } from "./report.js";
import { isFailed, type BenchResults, type ScenarioResults } from "./results-types.js";
import { loadScenarios } from "./scenario.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const ENVIRONMENT = `environment:
  BENCH_NODE                 the path of another node binary (Node 26 beside the machine's Node 20, say): the
                             worker-start scenario measures it too, in a column of its own, after writing the session
                             worker's code cache for its V8 version; unset, that column is not measured
`;

const flag = z.union([z.boolean(), z.enum(["true", "false"])]).transform((v) => v === true || v === "true");
const benchFlags = (NAMES: string[]) =>
  z.object({
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
  const SCENARIOS = await loadScenarios();
  const BenchFlags = benchFlags(SCENARIOS.map((s) => s.flag));
  if (argv.includes("--help")) {
    process.stdout.write(`usage: npm run bench [-- flags]\n\nflags:\n${flagsHelp(BenchFlags)}\n\n${ENVIRONMENT}`);
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
  const scenarios: ScenarioResults = {};
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
    for (const scenario of SCENARIOS) {
      if (only && !only.includes(scenario.flag)) continue;
      ctx.log(`${scenario.flag}: starting`);
      const t0 = performance.now();
      try {
        const outcome = await scenario.run(ctx);
        scenarios[scenario.key] = outcome;
        if (isSkipped(outcome)) ctx.log(`${scenario.flag}: skipped: ${outcome.skipped}`);
      } catch (error) {
        scenarios[scenario.key] = { failed: (error as Error).stack ?? String(error) };
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
  const markdown = markdownReport(final, SCENARIOS);
  writeFileSync(`${base}.json`, `${JSON.stringify(final, null, 2)}\n`);
  writeFileSync(`${base}.md`, markdown);
  rmSync(`${base}.json.tmp`, { force: true });
  const written = [`${base}.json`, `${base}.md`];
  for (const scenario of SCENARIOS) {
    const outcome = scenarios[scenario.key];
    if (!scenario.chart || outcome === undefined || isSkipped(outcome) || isFailed(outcome)) continue;
    writeFileSync(`${base}.svg`, scenario.chart(outcome, stamp));
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
