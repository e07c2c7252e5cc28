// The markdown report of one benchmark run (printed, and saved beside the JSON): a header, then each scenario's own
// section in its order.
import { isSkipped } from "./context.js";
import { isFailed, type BenchResults } from "./results-types.js";
import type { Scenario } from "./scenario.js";

/** The section's body, or one line saying why there is none. */
function section(scenario: Scenario<unknown>, outcome: unknown): string {
  if (outcome === undefined) return ""; // excluded by --only
  if (isSkipped(outcome)) return `### ${scenario.title}\n\nskipped: ${outcome.skipped}`;
  // The JSON keeps the whole stack; the table shows its first line.
  if (isFailed(outcome)) return `### ${scenario.title}\n\nfailed: ${outcome.failed.split("\n", 1)[0]}`;
  return `### ${scenario.title}\n\n${scenario.section(outcome).join("\n")}`;
}

export function markdownReport(results: BenchResults, scenarios: ReadonlyArray<Scenario<unknown>>): string {
  const m = results.machine;
  const parts = [
    `## Benchmark ${results.startedAt}${results.quick ? " (quick)" : ""}`,
    "",
    `\`${results.command}\` · ${m.cpus} × ${m.cpuModel} · ${m.memoryGiB} GiB · Node ${m.node} · ${m.platform} ${m.kernel}` +
      (results.git.commit
        ? ` · commit ${results.git.commit.slice(0, 10)}${results.git.dirty ? " (uncommitted changes)" : ""}`
        : "") +
      ` · ${Math.round(results.durationS)} s · load average ${results.loadAverage.start.toFixed(1)} at start, ${results.loadAverage.end.toFixed(1)} at end`,
    "",
    "Each figure is the median over repeated runs, with the spread across runs as (min–max); latencies in ms.",
    "",
    ...scenarios.map((scenario) => section(scenario, results.scenarios[scenario.key])),
    results.incidents.length === 0
      ? ""
      : `### Incidents\n\nFaults the run worked around:\n\n${results.incidents.map((i) => `- ${i.count} × ${i.message}`).join("\n")}`,
  ];
  return `${parts
    .filter((part) => part !== "")
    .join("\n\n")
    .replace(/\n{3,}/g, "\n\n")}\n`;
}
