// Echo latencies of a session, quiet and then under a flood (flood.ts, socket-flood.ts): each run's, and the runs'
// figures with the goal's ratio, flooded p99 ÷ quiet p99.
import { figure, summarize, type Figure } from "./stats.js";

export interface FloodedEchoes {
  quiet: { p50: number; p99: number };
  flooded: { p50: number; p99: number; echoes: number };
}

export interface FloodedEchoFigures {
  quiet: { p50: Figure; p99: Figure };
  flooded: { p50: Figure; p99: Figure; echoes: Figure };
  /** flooded p99 ÷ quiet p99, each run's, then the median. */
  p99Ratio: Figure;
}

export function floodedEchoes(quiet: readonly number[], flooded: readonly number[]): FloodedEchoes {
  const q = summarize(quiet);
  const f = summarize(flooded);
  return { quiet: { p50: q.p50, p99: q.p99 }, flooded: { p50: f.p50, p99: f.p99, echoes: flooded.length } };
}

export function floodedEchoFigures(runs: readonly FloodedEchoes[]): FloodedEchoFigures {
  return {
    quiet: { p50: figure(runs.map((m) => m.quiet.p50)), p99: figure(runs.map((m) => m.quiet.p99)) },
    flooded: {
      p50: figure(runs.map((m) => m.flooded.p50)),
      p99: figure(runs.map((m) => m.flooded.p99)),
      echoes: figure(runs.map((m) => m.flooded.echoes)),
    },
    p99Ratio: figure(runs.map((m) => m.flooded.p99 / m.quiet.p99)),
  };
}
