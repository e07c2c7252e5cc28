// The host's figures as the charts draw them, from the host's own samples (`_host/status` with `history`): the last 15
// minutes of them from the page's first paint, then those taken since, as the page polls. Rates are differences of
// the host's running sums between two samples (turns ended, model tokens by tenant and model), so a burst shorter
// than the time between samples still shows.
import type { HostSample } from "../../src/protocol/host-status";

export const WINDOW_MS = 15 * 60 * 1000;

export interface Sample {
  /** Seconds since the epoch (uPlot's x). */
  at: number;
  workers: number;
  rssMiB: number;
  turnsPerSecond: number;
  /** Model tokens a second, by "tenant · model". */
  tokensPerSecond: Map<string, number>;
}

const keyOf = (row: HostSample["tokens"][number]) => `${row.tenant ?? "(no tenant)"} · ${row.model}`;

export class HostSamples {
  readonly samples: Sample[] = [];
  #last: HostSample | null = null;

  /** When the newest sample taken was taken (ms since the epoch): the next poll asks for those after it. */
  get lastAt(): number | null {
    return this.#last?.at ?? null;
  }

  /** The host's samples, oldest first; those not newer than the last one added are skipped. */
  add(history: readonly HostSample[]): void {
    for (const sample of history) {
      const last = this.#last;
      if (last && sample.at <= last.at) continue;
      const seconds = last ? Math.max(0.001, (sample.at - last.at) / 1000) : 1;
      const before = new Map(last?.tokens.map((row) => [keyOf(row), row.tokens]));
      const tokensPerSecond = new Map<string, number>();
      for (const row of sample.tokens)
        tokensPerSecond.set(keyOf(row), last ? Math.max(0, row.tokens - (before.get(keyOf(row)) ?? 0)) / seconds : 0);
      this.samples.push({
        at: sample.at / 1000,
        workers: sample.workers,
        rssMiB: sample.rssBytes / 2 ** 20,
        turnsPerSecond: last ? Math.max(0, sample.turns - last.turns) / seconds : 0,
        tokensPerSecond,
      });
      this.#last = sample;
    }
    const newest = this.#last?.at ?? 0;
    while (this.samples.length > 0 && this.samples[0]!.at * 1000 < newest - WINDOW_MS) this.samples.shift();
  }
}
