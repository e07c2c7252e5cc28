// session/new's `_meta["acp-session-host"].budget`: tokens and costUsd, each a number ≥ 0; none given, the host's
// --session-budget-tokens default (if any); anything else is invalid params naming the field.
import { expect, it } from "vitest";
import { budgetFrom } from "../../src/host/handlers/budget-param.js";

const meta = (budget: unknown) => ({ "acp-session-host": { budget } });

it("takes tokens and costUsd, falls back to the default, refuses anything else", () => {
  expect(budgetFrom(meta({ tokens: 10, costUsd: 0.5 }), undefined)).toEqual({ tokens: 10, costUsd: 0.5 });
  expect(budgetFrom(meta({ costUsd: 2 }), 99)).toEqual({ costUsd: 2 });
  expect(budgetFrom(undefined, 99)).toEqual({ tokens: 99 });
  expect(budgetFrom({ "acp-session-host": { priority: "batch" } }, undefined)).toBeNull();
  for (const bad of [5, [], { tokens: -1 }, { tokens: "10" }, { tokens: Infinity }, { dollars: 1 }])
    expect(() => budgetFrom(meta(bad), undefined)).toThrow(/budget/);
});
