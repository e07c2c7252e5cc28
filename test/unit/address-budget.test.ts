// An address's budget of sockets the host closes at once: whole at first, spent one by one, refilled by the moment
// (not all at once each second), and forgotten once whole again.
import { expect, it } from "vitest";
import { AddressBudget } from "../../src/remote/address-budget.js";

it("spends an address's budget, refills it continuously, and forgets it once whole", () => {
  const budget = new AddressBudget(4);
  for (let i = 0; i < 4; i++) expect(budget.take("10.0.0.9", 0)).toBe(true);
  expect(budget.take("10.0.0.9", 0)).toBe(false);
  // Another address has its own.
  expect(budget.take("10.0.0.1", 0)).toBe(true);
  // A quarter of a second later, one more (4 a second); not two.
  expect(budget.take("10.0.0.9", 250)).toBe(true);
  expect(budget.take("10.0.0.9", 250)).toBe(false);
  expect(budget.spending).toBe(2);
  budget.prune(900);
  expect(budget.spending).toBe(1);
  budget.prune(1250);
  expect(budget.spending).toBe(0);
  for (let i = 0; i < 4; i++) expect(budget.take("10.0.0.9", 1250)).toBe(true);
});
