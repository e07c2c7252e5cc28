// A costUsd budget refuses a request once the tree's sessions' cost has reached it, or when the request's estimated
// prompt cost would pass it.
import { expect, it } from "vitest";
import { BudgetLedger } from "../../workers/gateway/budget-ledger.js";

it("refuses at the dollar budget, and before a request whose estimated cost would pass it", () => {
  const ledger = new BudgetLedger();
  ledger.setBudget("tree", { costUsd: 1 });
  ledger.add("tree", "root", 10, 0.6);
  expect(ledger.refusal("tree", 10, 0.4)).toBeNull();
  expect(ledger.refusal("tree", 10, 0.41)).toMatch(/would pass the session's budget of \$1/);
  ledger.told("tree", "child", 5, 0.4);
  expect(ledger.refusal("tree", 0, 0)).toMatch(/budget of \$1 is reached/);
});
