// A session's token sums since it was created (the inputs of its cost): from its log when it is restored, then
// from every response, summary requests included.
import type { LogEntry } from "../../src/protocol/session-log.js";
import type { TokenCounts } from "../../src/protocol/log/session-state.js";
import type { ModelUsage } from "../models/model.js";

export type { TokenCounts } from "../../src/protocol/log/session-state.js";

export function tokenCounts(usage: ModelUsage): TokenCounts {
  return { prompt: usage.promptTokens ?? 0, completion: usage.completionTokens ?? 0, cached: usage.cachedTokens ?? 0 };
}

export class UsageTotals {
  readonly #sums: TokenCounts = { prompt: 0, completion: 0, cached: 0 };

  /** base: the sums before the first entry (a compacted log's snapshot). */
  constructor(entries: readonly LogEntry[], base?: TokenCounts) {
    if (base) this.add(base);
    for (const entry of entries) if (entry.type === "usage") this.add(entry.tokens);
  }

  add(counts: TokenCounts): TokenCounts {
    this.#sums.prompt += counts.prompt;
    this.#sums.completion += counts.completion;
    this.#sums.cached += counts.cached;
    return { ...this.#sums };
  }
}
