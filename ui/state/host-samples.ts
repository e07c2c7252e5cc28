// The host's figures sampled from _host/status, kept in the page for the last 15 minutes: the charts' data. Rates
// are differences between two samples, per session (turns) and per tenant and model (tokens), so a session that
// closed between them takes nothing away. Only some samples carry the session rows (asking for them asks every
// session's worker for its figures): the turn rate is taken between two of those, and held in between.
import type { HostStatus } from "../acp/host-api";

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

export class HostSamples {
  readonly samples: Sample[] = [];
  #last: { at: number; tokens: Map<string, number> } | null = null;
  #lastRows: { at: number; turns: Map<string, number> } | null = null;
  #turnsPerSecond = 0;

  /** withRows: the status carries the session rows (its first page), not only the host's figures. */
  add(status: HostStatus, nowMs: number, withRows: boolean): void {
    if (withRows) {
      const turns = new Map(status.sessionRows.map((row) => [row.sessionId, row.turns]));
      const before = this.#lastRows;
      if (before) {
        let done = 0;
        for (const [id, count] of turns) done += Math.max(0, count - (before.turns.get(id) ?? count));
        this.#turnsPerSecond = done / Math.max(0.001, (nowMs - before.at) / 1000);
      }
      this.#lastRows = { at: nowMs, turns };
    }
    const tokens = new Map(
      status.usage.map((usage) => [
        `${usage.tenant ?? "(no tenant)"} · ${usage.model}`,
        usage.tokens.prompt + usage.tokens.completion,
      ]),
    );
    const last = this.#last;
    const seconds = last ? Math.max(0.001, (nowMs - last.at) / 1000) : 1;
    const tokensPerSecond = new Map<string, number>();
    for (const [key, count] of tokens)
      tokensPerSecond.set(key, last ? Math.max(0, count - (last.tokens.get(key) ?? 0)) / seconds : 0);
    this.#last = { at: nowMs, tokens };
    this.samples.push({
      at: nowMs / 1000,
      workers: status.threads.workers,
      rssMiB: status.memory.rssBytes / 2 ** 20,
      turnsPerSecond: this.#turnsPerSecond,
      tokensPerSecond,
    });
    while (this.samples.length > 0 && this.samples[0]!.at * 1000 < nowMs - WINDOW_MS) this.samples.shift();
  }
}
