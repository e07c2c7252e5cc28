// Budgets that pause (issue 63): every name this host gives them is here, so a rename is a change of this file.
// Shared by the host (which answers), the model gateway (which holds each session tree's budget and spend) and the
// client library (which asks).
import * as z from "zod/mini";

/** Client → host: raise (or lower) a session tree's budget; the next prompt goes on if it is no longer reached. */
export const SET_BUDGET_METHOD = "_host/set_budget";
/** The prompt response's `_meta["acp-session-host"].reason` when its turn ended for the budget (stop reason max_tokens). */
export const BUDGET_REACHED = "BUDGET_REACHED";

/** A session tree's budget: tokens (prompt + completion, as the provider reports them) and/or US dollars. */
export const Budget = z.object({
  tokens: z.optional(z.number().check(z.nonnegative())),
  costUsd: z.optional(z.number().check(z.nonnegative())),
});
export type Budget = z.infer<typeof Budget>;

/** A model's prices, US dollars per million tokens (--model-price): prompt tokens, those served from the cache, output. */
export const Price = z.object({
  input: z.number().check(z.nonnegative()),
  cachedInput: z.number().check(z.nonnegative()),
  output: z.number().check(z.nonnegative()),
});
export type Price = z.infer<typeof Price>;

/** What these token counts cost at this price, in US dollars (`cached`: prompt tokens served from the cache). */
export function costUsd(price: Price, tokens: { prompt: number; completion: number; cached: number }): number {
  const cached = Math.min(tokens.cached, tokens.prompt);
  return ((tokens.prompt - cached) * price.input + cached * price.cachedInput + tokens.completion * price.output) / 1e6;
}
