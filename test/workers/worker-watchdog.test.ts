// The worker watchdog: an idle session's worker whose event loop is blocked stops answering pings; after
// --worker-stall-ms it is ended, and the session's next prompt runs in a fresh worker restored from its log.
import { describe, expect, it } from "vitest";
import { transcript } from "../support/durable.js";
import { startHost, tempDir } from "../support/host.js";
import { script, waitFor } from "../support/tools.js";

describe("worker watchdog", () => {
  it("ends a worker that blocks after its turn; the next prompt is answered from a restored session", async () => {
    // Long enough that a worker answering its pings is never taken for a stalled one on a loaded machine.
    const host = await startHost(["--allow-fault-injection", "--worker-stall-ms", "3000"]);
    try {
      const cwd = tempDir();
      const { sessionId } = await host.client.newSession(cwd);
      const other = (await host.client.newSession(tempDir())).sessionId;
      expect((await host.client.prompt(sessionId, script({ say: "done" }, { freeze_after_ms: 120_000 }))).text).toBe(
        "done",
      );
      await waitFor(
        "the watchdog",
        () => host.stderr().includes("did not answer a ping for --worker-stall-ms"),
        20_000,
      );
      // A session whose worker answers its pings is left alone.
      expect((await host.client.prompt(other, "still here")).text).toBe("You said: still here");
      expect((await host.client.prompt(sessionId, "after")).text).toBe("You said: after");
      expect(transcript(await host.client.load(sessionId, cwd))).toEqual([
        "user: " + script({ say: "done" }, { freeze_after_ms: 120_000 }),
        "agent: done",
        "user: after",
        "agent: You said: after",
      ]);
      expect(host.stderr().match(/did not answer a ping/g)).toHaveLength(1);
    } finally {
      await host.dispose();
    }
  });
});
