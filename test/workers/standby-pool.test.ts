// The standby pool adapts: a burst of session/new grows the started-but-unbound workers beyond --warm-workers (up
// to --max-warm-workers); once the burst is over they shrink back.
import { afterAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { waitFor } from "../support/tools.js";

describe("standby workers", () => {
  let host: TestHost;
  afterAll(async () => {
    await host?.dispose();
  });

  it("grow during a burst of session/new and shrink back to --warm-workers after it", async () => {
    host = await startHost(["--warm-workers", "1", "--max-warm-workers", "6"]);
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
    await waitFor("standby back to the minimum", async () => (await host.client.stats()).threads.standby === 1);
  });
});
