// Budgets that pause: each session tree's budget and what its sessions have spent (tokens, as the provider reports
// them: prompt + completion). A request is refused, before it is sent, when the tree's spend has reached its budget or
// the request's estimated prompt tokens would pass it. A session's spend is told on each connect (its log's sums and
// every response since), so a restarted host or gateway counts it again; the responses in between are added here.
import type { Budget } from "../../src/protocol/budget.js";

export interface Spend {
  tokens: number;
  costUsd: number;
}

interface Tree {
  budget: Budget | null;
  /** The budget is _host/set_budget's (in this host's life): a session's log, told later on its port, is not newer. */
  set: boolean;
  /** Per session of the tree (its label): tokens spent, and what they cost (US dollars, where the model has a price). */
  spent: Map<string, Spend>;
}

export class BudgetLedger {
  readonly #trees = new Map<string, Tree>();

  #tree(tree: string): Tree {
    let found = this.#trees.get(tree);
    if (!found) this.#trees.set(tree, (found = { budget: null, set: false, spent: new Map() }));
    return found;
  }

  /**
   * The tree's budget from now on (an empty budget is none). set: _host/set_budget's, which replaces any; else what a
   * session's header or log holds, which does not replace a set one (messages on the main thread's port and on a
   * session's port arrive in no order between them, and a set budget is journaled by the tree's root anyway).
   */
  setBudget(tree: string, budget: Budget, set = false): void {
    const found = this.#tree(tree);
    if (found.set && !set) return;
    found.budget = budget.tokens === undefined && budget.costUsd === undefined ? null : budget;
    found.set ||= set;
  }

  /** What a session of the tree has spent in all (told on its connect): replaces what was counted for it. */
  told(tree: string, session: string, tokens: number, costUsd = 0): void {
    this.#tree(tree).spent.set(session, { tokens, costUsd });
  }

  /** A response's tokens, counted for its session. */
  add(tree: string, session: string, tokens: number, costUsd = 0): void {
    const { spent } = this.#tree(tree);
    const before = spent.get(session) ?? { tokens: 0, costUsd: 0 };
    spent.set(session, { tokens: before.tokens + tokens, costUsd: before.costUsd + costUsd });
  }

  /** Tokens the tree has spent. */
  spent(tree: string): number {
    return this.spend(tree).tokens;
  }

  spend(tree: string): Spend {
    const sum = { tokens: 0, costUsd: 0 };
    for (const one of this.#trees.get(tree)?.spent.values() ?? []) {
      sum.tokens += one.tokens;
      sum.costUsd += one.costUsd;
    }
    return sum;
  }

  /**
   * Why a request of `estimate` prompt tokens may not be sent, or null when it may. estimateUsd: what those tokens
   * cost at the request's model's input price (0 when it has none).
   */
  refusal(tree: string, estimate: number, estimateUsd = 0): string | null {
    const budget = this.#trees.get(tree)?.budget;
    const dollars = budget?.costUsd;
    if (dollars !== undefined) {
      const { costUsd } = this.spend(tree);
      if (costUsd >= dollars) return `the session's budget of $${dollars} is reached ($${costUsd.toFixed(4)} spent)`;
      if (costUsd + estimateUsd > dollars)
        return `the request (about $${estimateUsd.toFixed(4)} of prompt) would pass the session's budget of $${dollars} ($${costUsd.toFixed(4)} spent)`;
    }
    const limit = budget?.tokens;
    if (limit === undefined) return null;
    const spent = this.spent(tree);
    if (spent >= limit) return `the session's budget of ${limit} tokens is reached (${spent} spent)`;
    if (spent + estimate > limit)
      return `the request (about ${estimate} prompt tokens) would pass the session's budget of ${limit} tokens (${spent} spent)`;
    return null;
  }
}
