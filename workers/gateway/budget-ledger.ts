// Budgets that pause: each session tree's budget and what its sessions have spent (tokens, as the provider reports
// them: prompt + completion). A request is refused, before it is sent, when the tree's spend has reached its budget or
// the request's estimated prompt tokens would pass it. A session's spend is told on each connect (its log's sums and
// every response since), so a restarted host or gateway counts it again; the responses in between are added here.
import type { Budget } from "../../src/protocol/budget.js";

interface Tree {
  budget: Budget | null;
  /** Per session of the tree (its label): tokens spent. */
  spent: Map<string, number>;
}

export class BudgetLedger {
  readonly #trees = new Map<string, Tree>();

  #tree(tree: string): Tree {
    let found = this.#trees.get(tree);
    if (!found) this.#trees.set(tree, (found = { budget: null, spent: new Map() }));
    return found;
  }

  /** The tree's budget from now on (replaces the one before; an empty budget is none). */
  setBudget(tree: string, budget: Budget): void {
    this.#tree(tree).budget = budget.tokens === undefined && budget.costUsd === undefined ? null : budget;
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
