// The standby pool learns the bursts: a burst of session/new grows the started-but-unbound workers beyond
// --warm-workers (up to --max-warm-workers), the pool refills to the burst's size after it (the next burst finds its
// threads started), and once no burst came for --burst-memory-ms they shrink back.
import { afterAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { waitFor } from "../support/tools.js";

describe("standby workers", () => {
  let host: TestHost;
  afterAll(async () => {
    await host?.dispose();
  });

  it("grow during a burst of session/new, refill to its size after it, and shrink back to --warm-workers", async () => {
    host = await startHost(["--warm-workers", "1", "--max-warm-workers", "6", "--burst-memory-ms", "1000"]);
    await waitFor("the first standby worker", async () => (await host.client.stats()).threads.standby === 1);
    const cwd = tempDir();
    let most = 0;
    const sampler = setInterval(
      () => void host.client.stats().then((stats) => (most = Math.max(most, stats.threads.standby))),
      10,
    );
    try {
      const sessions = await Promise.all(Array.from({ length: 8 }, () => host.client.newSession(cwd)));
      await Promise.all(sessions.map(({ sessionId }) => host.client.prompt(sessionId, "hi")));
      await waitFor("standby workers beyond the minimum", () => most > 1);
    } finally {
      clearInterval(sampler);
    }
    expect(most).toBeLessThanOrEqual(6);
    await waitFor(
      "the pool refilled to the burst's size",
      async () => (await host.client.stats()).threads.standby === 6,
    );
    await waitFor("standby back to the minimum", async () => (await host.client.stats()).threads.standby === 1);
  });
});
