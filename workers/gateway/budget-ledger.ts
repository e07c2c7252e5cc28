// Budgets that pause: each session tree's budget and what its sessions have spent (tokens, as the provider reports
// them: prompt + completion). A request is refused, before it is sent, when the tree's spend has reached its budget or
// the request's estimated prompt tokens would pass it. A session's spend is told on each connect (its log's sums and
// every response since), so a restarted host or gateway counts it again; the responses in between are added here.
import type { Budget } from "../../src/protocol/budget.js";

interface Tree {
  budget: Budget | null;
  /** The budget is _host/set_budget's (in this host's life): a session's log, told later on its port, is not newer. */
  set: boolean;
  /** Per session of the tree (its label): tokens spent. */
  spent: Map<string, number>;
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
  told(tree: string, session: string, tokens: number): void {
    this.#tree(tree).spent.set(session, tokens);
  }

  /** A response's tokens, counted for its session. */
  add(tree: string, session: string, tokens: number): void {
    const { spent } = this.#tree(tree);
    spent.set(session, (spent.get(session) ?? 0) + tokens);
  }

  spent(tree: string): number {
    let sum = 0;
    for (const tokens of this.#trees.get(tree)?.spent.values() ?? []) sum += tokens;
    return sum;
  }

  /** Why a request of `estimate` prompt tokens may not be sent, or null when it may. */
  refusal(tree: string, estimate: number): string | null {
    const limit = this.#trees.get(tree)?.budget?.tokens;
    if (limit === undefined) return null;
    const spent = this.spent(tree);
    if (spent >= limit) return `the session's budget of ${limit} tokens is reached (${spent} spent)`;
    if (spent + estimate > limit)
      return `the request (about ${estimate} prompt tokens) would pass the session's budget of ${limit} tokens (${spent} spent)`;
    return null;
  }
}
