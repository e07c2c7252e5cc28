// session/new's `_meta["acp-session-host"].budget: { tokens?, costUsd? }`, its session tree's budget (docs/models.md,
// Budgets): a model request that would pass it is not sent and the turn ends max_tokens (BUDGET_REACHED). None given:
// --session-budget-tokens', if set; else none.
import type { Budget } from "../../protocol/budget.js";
import { invalidParams } from "../../request-errors.js";
import { LIST_META_KEY } from "../../store/listing.js";

const FIELD = `_meta.${LIST_META_KEY}.budget`;

export function budgetFrom(meta: unknown, defaultTokens: number | undefined): Budget | null {
  const ours = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[LIST_META_KEY] : undefined;
  const asked = typeof ours === "object" && ours !== null ? (ours as { budget?: unknown }).budget : undefined;
  if (asked === undefined || asked === null) return defaultTokens === undefined ? null : { tokens: defaultTokens };
  if (typeof asked !== "object" || Array.isArray(asked))
    throw invalidParams(FIELD, "a budget is an object: { tokens?, costUsd? }");
  const { tokens, costUsd, ...rest } = asked as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw invalidParams(FIELD, `a budget has tokens and costUsd only, not ${extra.join(", ")}`);
  return { ...amount("tokens", tokens), ...amount("costUsd", costUsd) };
}

/** One amount of a budget (session/new's or _host/set_budget's): absent, or a finite number ≥ 0. */
export function amount<K extends "tokens" | "costUsd">(
  key: K,
  value: unknown,
  field = `${FIELD}.${key}`,
): Partial<Record<K, number>> {
  if (value === undefined || value === null) return {};
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
    throw invalidParams(field, `a budget's ${key} is a number ≥ 0`);
  return { [key]: value } as Partial<Record<K, number>>;
}
