// The host's collection of its heap once idle (src/host/ops/idle-collect.ts).
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "vitest";
import { idleCollector, type IdleCollector } from "../../src/host/ops/idle-collect.js";

describe("collects once no prompt is in flight", () => {
  const youngBytes = () =>
    getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.physical_space_size ?? 0;

  /** Enough short-lived garbage for V8 to grow its young generation to the maximum. */
  function churn(): void {
    let kept: Array<{ n: number; s: string }> = [];
    for (let n = 0; n < 2_000_000; n++) {
      kept.push({ n, s: `garbage ${n}` });
      if (kept.length > 100_000) kept = [];
    }
  }

  async function untilSettled(collector: IdleCollector): Promise<void> {
    while (!collector.settled) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  it("once no prompt is in flight, collects the main heap and gives the young generation back", async () => {
    const collector = idleCollector(20);
    churn();
    const before = youngBytes();
    collector.busy();
    expect(collector.settled).toBe(false);
    collector.idle();
    await untilSettled(collector);
    expect(collector.count).toBe(1);
    expect(youngBytes()).toBeLessThan(before / 4);
  });

  it("a prompt started in the quiet delay puts the collection off; an ungrown heap is not collected again", async () => {
    let collections = 0;
    const collector = idleCollector(
      20,
      async () => void collections++,
      () => 64 * 2 ** 20,
    );
    collector.busy();
    collector.idle();
    collector.busy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(collector.settled).toBe(false);
    expect(collections).toBe(0);

    collector.idle();
    await untilSettled(collector);
    expect(collections).toBe(1);
    collector.busy();
    collector.idle();
    await untilSettled(collector);
    expect(collections).toBe(1);
    expect(collector.count).toBe(1);
  });
});

describe("stopped", () => {
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
});
