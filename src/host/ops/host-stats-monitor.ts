// Answers `_host/stats`: main-thread event-loop delay, thread and session counts, memory.
import { readdir } from "node:fs/promises";
import { monitorEventLoopDelay, type IntervalHistogram } from "node:perf_hooks";
import type { HostStats, HostStatsParams } from "../../protocol/host-stats.js";
import { HostHistory } from "./host-history.js";
import type { OpsHost } from "./ops-host.js";

const RESOLUTION_MS = 10;
const started = performance.now();

export class HostStatsMonitor {
  readonly #host: OpsHost;
  readonly #delay: IntervalHistogram;
  #since = performance.now();
  /** The host's samples of itself (`_host/status` with `history: true`). */
  readonly history: HostHistory;

  constructor(host: OpsHost) {
    this.#host = host;
    this.history = new HostHistory(host);
    this.#delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.#delay.enable();
  }

  async snapshot(request: HostStatsParams): Promise<HostStats> {
    const [processThreads, fleetHosts] = await Promise.all([
      readdir("/proc/self/task").then(
        (tasks) => tasks.length,
        () => null,
      ),
      this.#host.store.fleetHosts(),
    ]);
    const h = this.#delay;
    // The histogram records whole timer intervals; the lag is what exceeds the sampling resolution.
    const ms = (ns: number) => (Number.isFinite(ns) ? Math.max(0, ns / 1e6 - RESOLUTION_MS) : 0);
    // An empty histogram reports min as a huge sentinel: show zeros instead.
    const empty = h.count === 0;
    const now = performance.now();
    let busy = 0;
    for (const session of this.#host.sessions.values()) if (session.busy) busy++;
    const memory = process.memoryUsage();
    const store = this.#host.store;
    const stats: HostStats = {
      pid: process.pid,
      uptimeMs: now - started,
      sessions: { live: this.#host.sessions.size, busy },
      threads: {
        workers: this.#host.pool.liveThreads,
        mostWorkers: this.#host.pool.mostLiveThreads,
        standby: this.#host.pool.standby,
        process: processThreads,
      },
      eventLoopDelayMs: {
        min: empty ? 0 : ms(h.min),
        mean: empty ? 0 : ms(h.mean),
        p50: empty ? 0 : ms(h.percentile(50)),
        p90: empty ? 0 : ms(h.percentile(90)),
        p99: empty ? 0 : ms(h.percentile(99)),
        max: empty ? 0 : ms(h.max),
        windowMs: now - this.#since,
      },
      limits: {
        maxLiveWorkers: this.#host.config.maxLiveWorkers,
        maxRssBytes: this.#host.config.maxRssMb * 2 ** 20,
      },
      store: {
        label: store.label,
        shared: store.shared,
        hostId: this.#host.hostId,
        reachable: store.reachable,
        commits: store.commits,
        fleetHosts,
      },
      memory: {
        rssBytes: memory.rss,
        heapUsedBytes: memory.heapUsed,
        heapTotalBytes: memory.heapTotal,
        externalBytes: memory.external,
        idleCollections: this.#host.idleCollector.count,
        atRest: this.#host.idleCollector.settled,
      },
    };
    if (request.resetEventLoopDelay) {
      h.reset();
      this.#since = now;
    }
    return stats;
  }
}
