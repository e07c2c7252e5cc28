// The order waiting requests get room at an endpoint: fair between tenants by weight, then between a tenant's session
// trees, interactive before batch within a tenant, a refused request ahead of everyone.
import { expect, it } from "vitest";
import { FairQueue, type Shared } from "../../workers/gateway/fair-queue.js";
import type { Share } from "../../src/protocol/gateway-asks.js";

interface Item extends Shared {
  name: string;
}

const item = (
  name: string,
  tenant: string | null,
  tree: string,
  priority: Share["priority"] = "interactive",
): Item => ({
  name,
  share: { tenant, tree, priority },
});

function drain(queue: FairQueue<Item>): string[] {
  const names: string[] = [];
  for (let next = queue.shift(); next; next = queue.shift()) names.push(next.name);
  return names;
}

it("a tenant's ten requests that arrive behind another's ninety go every other one, not after the ninety", () => {
  const queue = new FairQueue<Item>();
  for (let i = 0; i < 90; i++) queue.push(item(`a${i}`, "a", `a-tree-${i}`));
  for (let i = 0; i < 10; i++) queue.push(item(`b${i}`, "b", `b-tree-${i}`));
  const order = drain(queue);
  expect(order).toHaveLength(100);
  // B's ten are all among the first twenty-one.
  expect(order.slice(0, 21).filter((name) => name.startsWith("b"))).toHaveLength(10);
});

it("weights share in proportion, trees of a tenant take turns, interactive goes first, a refused one goes ahead", () => {
  const weighted = new FairQueue<Item>((tenant) => (tenant === "a" ? 3 : 1));
  for (let i = 0; i < 30; i++) weighted.push(item(`a${i}`, "a", "t"));
  for (let i = 0; i < 30; i++) weighted.push(item(`b${i}`, "b", "u"));
  expect(
    drain(weighted)
      .slice(0, 20)
      .filter((name) => name.startsWith("a")),
  ).toHaveLength(15);

  const trees = new FairQueue<Item>();
  for (let i = 0; i < 3; i++) trees.push(item(`parent-${i}`, "a", "big"));
  trees.push(item("other", "a", "small"));
  trees.push(item("late-batch", "a", "slow", "batch"));
  trees.push(item("child", "a", "big"));
  const refused = item("refused", "z", "r");
  trees.unshift(refused);
  expect(trees.size).toBe(7);
  expect(trees.remove(item("not-queued", "a", "big"))).toBe(false);
  expect(drain(trees)).toEqual(["refused", "parent-0", "other", "parent-1", "parent-2", "child", "late-batch"]);
});
