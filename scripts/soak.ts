// npm run soak -- [--sessions N] [--prompts N] [--concurrency N] [--seed S]: the long soak through the built host.
// Writes a table and an SVG (RSS and p99 over time) to bench/results/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { numberFlag } from "./args.js";
import { REPO_ROOT } from "../test/support/cli-path.js";
import { leaks, runSoak } from "../test/support/soak.js";
import { soakChart } from "./soak-chart.js";

const argv = process.argv.slice(2);
const seed = numberFlag(argv, "seed", Math.floor(Math.random() * 2 ** 31));
const sessions = numberFlag(argv, "sessions", 1000);
const prompts = numberFlag(argv, "prompts", 10);
const concurrency = numberFlag(argv, "concurrency", 8);
console.log(`soak: seed ${seed}, ${sessions} sessions × ${prompts} prompts, ${concurrency} at a time`);
const report = await runSoak({
  seed,
  sessions,
  prompts,
  concurrency,
  warmupSessions: Math.max(concurrency, Math.round(sessions / 10)),
  windowMs: 60_000,
  log: (line) => console.log(line),
});
const ratio = report.p99LastMs / report.p99FirstMs;
const rows = [
  "| | after warm-up | end | change |",
  "|---|---:|---:|---:|",
  ...(["rssMb", "fds", "threads", "children"] as const).map((key) => {
    const a = report.baseline[key];
    const b = report.end[key];
    return `| ${key} | ${a.toFixed(key === "rssMb" ? 1 : 0)} | ${b.toFixed(key === "rssMb" ? 1 : 0)} | ${a === 0 ? "–" : `${(((b - a) / a) * 100).toFixed(1)} %`} |`;
  }),
  `| echo p99 (ms), first vs last minute | ${report.p99FirstMs.toFixed(1)} | ${report.p99LastMs.toFixed(1)} | ×${ratio.toFixed(2)} |`,
];
const table = `${rows.join("\n")}\n\n${sessions} sessions × ${prompts} prompts in ${(report.durationMs / 1000).toFixed(0)} s, seed ${seed}, failures ${report.failures.length}\n`;
console.log(table);
const out = join(REPO_ROOT, "bench", "results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "soak.md"), table);
writeFileSync(
  join(out, "soak.svg"),
  soakChart(report.samples, `soak: ${sessions} sessions × ${prompts} prompts (seed ${seed})`),
);
const problems = [
  ...report.failures,
  ...leaks(report),
  ...(ratio > 1.3 ? [`p99 grew ×${ratio.toFixed(2)} (allowed ×1.3)`] : []),
];
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(
    `reproduce: npm run soak -- --seed ${seed} --sessions ${sessions} --prompts ${prompts} --concurrency ${concurrency}`,
  );
  process.exitCode = 1;
}
