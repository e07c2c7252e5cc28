// A budget _host/set_budget set is not replaced by what a session's header or log holds, told later on its own port
// (the two ports' messages arrive in no order between them); a later set one replaces it.
import { expect, it } from "vitest";
import { BudgetLedger } from "../../workers/gateway/budget-ledger.js";

it("a set budget stands against a session's logged one, not against a later set one", () => {
  const ledger = new BudgetLedger();
  ledger.setBudget("tree", { tokens: 100 });
  ledger.setBudget("tree", { tokens: 200 });
  ledger.add("tree", "root", 150);
  expect(ledger.refusal("tree", 0)).toBeNull();
  ledger.setBudget("tree", { tokens: 1000 }, true);
  ledger.setBudget("tree", { tokens: 100 });
  expect(ledger.refusal("tree", 0)).toBeNull();
  ledger.setBudget("tree", { tokens: 150 }, true);
  expect(ledger.refusal("tree", 0)).toMatch(/reached/);
});
