// What a session tells of its spend on connect (its log's sums and its responses since) replaces what the gateway
// counted for it: a worker that connects again is not counted twice, and its tree's other sessions still count.
import { expect, it } from "vitest";
import { BudgetLedger } from "../../workers/gateway/budget-ledger.js";

it("a session's told spend replaces its count; the tree sums its sessions", () => {
  const ledger = new BudgetLedger();
  ledger.told("tree", "root", 300);
  ledger.add("tree", "root", 200);
  ledger.add("tree", "child", 50);
  expect(ledger.spent("tree")).toBe(550);
  ledger.told("tree", "root", 500);
  expect(ledger.spent("tree")).toBe(550);
  ledger.told("tree", "child", 70);
  expect(ledger.spent("tree")).toBe(570);
});
