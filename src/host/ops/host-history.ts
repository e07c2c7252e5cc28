// The host's own recent figures, sampled every few seconds and kept for 15 minutes: what the dashboard's charts draw
// from their first paint, not only from the samples a page took since it opened. A turn counts when it ends, so a
// burst shorter than a sample still moves the next sample's sum.
import type { HostSample } from "../../protocol/host-status.js";
import type { OpsHost } from "./ops-host.js";

export const HISTORY_SAMPLE_MS = 2000;
export const HISTORY_WINDOW_MS = 15 * 60 * 1000;
const KEPT = HISTORY_WINDOW_MS / HISTORY_SAMPLE_MS;

export class HostHistory {
  readonly #host: Pick<OpsHost, "pool" | "usage" | "sessionDeps">;
  /** Oldest first; at most KEPT of them. */
  readonly #samples: HostSample[] = [];
  #turns = 0;

  constructor(host: Pick<OpsHost, "pool" | "usage" | "sessionDeps">) {
    this.#host = host;
    host.sessionDeps.hooks.on("turnEnded", () => this.#turns++);
    this.#sample();
    // Unref'd: the samples never hold the host up, and teardown has nothing to end.
    setInterval(() => this.#sample(), HISTORY_SAMPLE_MS).unref();
  }

  /** The samples of the window taken after `after` (ms since the epoch; null: all), oldest first, and one of now. */
  samples(after: number | null): HostSample[] {
    const kept = after === null ? this.#samples : this.#samples.filter((sample) => sample.at > after);
    return [...kept, this.#now()];
  }

  #sample(): void {
    if (this.#samples.length === KEPT) this.#samples.shift();
    this.#samples.push(this.#now());
  }

  #now(): HostSample {
    return {
      at: Date.now(),
      workers: this.#host.pool.liveThreads,
      rssBytes: process.memoryUsage.rss(),
      turns: this.#turns,
      tokens: this.#host.usage
        .rows()
        .map(({ tenant, model, tokens }) => ({ tenant, model, tokens: tokens.prompt + tokens.completion })),
    };
  }
}
