// A session tree's budget refuses a request when its spend has reached it, or when the request's estimated prompt
// tokens would pass it; a tree with no token budget refuses none.
import { expect, it } from "vitest";
import { BudgetLedger } from "../../workers/gateway/budget-ledger.js";

it("refuses at the budget, and before a request whose estimate would pass it", () => {
  const ledger = new BudgetLedger();
  expect(ledger.refusal("tree", 1_000_000)).toBeNull();
  ledger.setBudget("tree", { tokens: 1000 });
  ledger.add("tree", "root", 600);
  expect(ledger.refusal("tree", 400)).toBeNull();
  expect(ledger.refusal("tree", 401)).toMatch(/would pass the session's budget of 1000 tokens \(600 spent\)/);
  ledger.add("tree", "child", 400);
  expect(ledger.refusal("tree", 0)).toMatch(/budget of 1000 tokens is reached \(1000 spent\)/);
  expect(ledger.refusal("another tree", 0)).toBeNull();
  ledger.setBudget("tree", { tokens: 5000 });
  expect(ledger.refusal("tree", 100)).toBeNull();
});
