import { expect, it } from "vitest";
import { idleCollector } from "../../src/host/ops/idle-collect.js";

it("once stopped (the host is ending), collects nothing: not the collection already due, not a later one", async () => {
  let collections = 0;
  const collector = idleCollector(
    10,
    async () => void collections++,
    () => 64 * 2 ** 20,
  );
  collector.busy();
  collector.idle();
  collector.stop();
  collector.busy();
  collector.idle();
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(collections).toBe(0);
  expect(collector.count).toBe(0);
});
