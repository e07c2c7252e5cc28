// The shape of bench/results/<timestamp>.json.
import type { Skipped } from "./context.js";

/** A scenario that threw: the run goes on and the report says so. */
export interface Failed {
  failed: string;
}

export type Outcome<T> = T | Skipped | Failed;

/** Each scenario's outcome under its key (bench/scenario.ts); a scenario left out by --only is absent. */
export type ScenarioResults = Record<string, unknown>;

export interface BenchResults {
  startedAt: string;
  durationS: number;
  quick: boolean;
  command: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string; kernel: string };
  /** 1-minute load average when the run started and when it ended: other work on the machine skews the figures. */
  loadAverage: { start: number; end: number };
  git: { commit: string | null; dirty: boolean | null };
  scenarios: ScenarioResults;
  /** Faults the run worked around, with how often they happened. */
  incidents: Array<{ message: string; count: number }>;
}

export function isFailed(value: unknown): value is Failed {
  return typeof value === "object" && value !== null && "failed" in value;
}
