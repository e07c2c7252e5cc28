// A session's token sums since it was created (the inputs of its cost): from its log when it is restored, then
// from every response, summary requests included.
import type { TokenCounts } from "../../src/protocol/log/session-state.js";
import type { ModelUsage } from "../models/model.js";

export function tokenCounts(usage: ModelUsage): TokenCounts {
  return { prompt: usage.promptTokens ?? 0, completion: usage.completionTokens ?? 0, cached: usage.cachedTokens ?? 0 };
}

export class UsageTotals {
  readonly #sums: TokenCounts = { prompt: 0, completion: 0, cached: 0 };

  /** restored: the sums the session's log holds. */
  constructor(restored: TokenCounts) {
    this.add(restored);
  }

  /** Tokens spent in all (prompt + completion): what a budget counts. */
  get sums(): TokenCounts {
    return { ...this.#sums };
  }

  get spent(): number {
    return this.#sums.prompt + this.#sums.completion;
  }

  add(counts: TokenCounts): TokenCounts {
    this.#sums.prompt += counts.prompt;
    this.#sums.completion += counts.completion;
    this.#sums.cached += counts.cached;
    return { ...this.#sums };
  }
}
