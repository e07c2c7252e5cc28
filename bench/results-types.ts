// The shape of bench/results/<timestamp>.json.
import type { Skipped } from "./context.js";
import type { BashSpawnResult } from "./scenarios/bash-spawn.js";
import type { FanOutResult } from "./scenarios/fan-out.js";
import type { ForkResult } from "./scenarios/fork.js";
import type { FleetResult } from "./scenarios/fleet.js";
import type { FloodResult } from "./scenarios/flood.js";
import type { SocketFloodResult } from "./scenarios/socket-flood.js";
import type { McpResult } from "./scenarios/mcp.js";
import type { ListResult } from "./scenarios/list.js";
import type { NoisyResult } from "./scenarios/noisy-neighbour.js";
import type { OpenAiResult } from "./scenarios/openai.js";
import type { RemoteResult } from "./scenarios/remote.js";
import type { RestoreResult } from "./scenarios/restore.js";
import type { RssResult } from "./scenarios/rss.js";
import type { ScaleResult } from "./scenarios/scale.js";
import type { SessionNewResult } from "./scenarios/session-new.js";
import type { TeardownResult } from "./scenarios/teardown.js";
import type { ThroughputResult } from "./scenarios/throughput.js";
import type { TracingResult } from "./scenarios/tracing.js";
import type { WorkerStartResult } from "./scenarios/worker-start.js";

/** A scenario that threw: the run goes on and the report says so. */
export interface Failed {
  failed: string;
}

export type Outcome<T> = T | Skipped | Failed;

export interface ScenarioResults {
  workerStart: Outcome<WorkerStartResult>;
  throughput: Outcome<ThroughputResult>;
  sessionNew: Outcome<SessionNewResult>;
  rss: Outcome<RssResult>;
  scale: Outcome<ScaleResult>;
  noisyNeighbour: Outcome<NoisyResult>;
  bashSpawn: Outcome<BashSpawnResult>;
  teardown: Outcome<TeardownResult>;
  openAi: Outcome<OpenAiResult>;
  remote: Outcome<RemoteResult>;
  mcp: Outcome<McpResult>;
  restore: Outcome<RestoreResult>;
  list: Outcome<ListResult>;
  fleet: Outcome<FleetResult>;
  flood: Outcome<FloodResult>;
  fork: Outcome<ForkResult>;
  fanOut: Outcome<FanOutResult>;
  tracing: Outcome<TracingResult>;
  socketFlood: Outcome<SocketFloodResult>;
}

export interface BenchResults {
  startedAt: string;
  durationS: number;
  quick: boolean;
  command: string;
  machine: { cpus: number; cpuModel: string; memoryGiB: number; node: string; platform: string; kernel: string };
  /** 1-minute load average when the run started and when it ended: other work on the machine skews the figures. */
  loadAverage: { start: number; end: number };
  git: { commit: string | null; dirty: boolean | null };
  scenarios: Partial<ScenarioResults>;
  /** Faults the run worked around, with how often they happened. */
  incidents: Array<{ message: string; count: number }>;
}

export function isFailed(value: unknown): value is Failed {
  return typeof value === "object" && value !== null && "failed" in value;
}
