// --max-rss-mb: before the host would pass it, the least recently used idle session hibernates to make room; when no
// idle session is left, session/new (and a prompt that needs a worker) get a clear -32603, and the host goes on; once
// the sessions holding the memory are idle, session/new hibernates them and is let in.
import type { ResumeSessionResponse } from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { startHost, tempDir } from "../support/host.js";
import { script, waitFor } from "../support/tools.js";

describe("the host's memory limit", () => {
  it("refuses session/new with a clear error when the host is over it, and keeps serving", async () => {
    const host = await startHost(["--max-rss-mb", "64"]);
    try {
      await expect(host.client.newSession(tempDir())).rejects.toMatchObject({
        code: -32603,
        data: { reason: "MEMORY_LIMIT", rssMiB: expect.any(Number), limitMiB: 64 },
      });
      expect((await host.client.stats()).pid).toBe(host.pid);
    } finally {
      await host.dispose();
    }
  });

  it("hibernates the least recently used idle session to make room for a worker", async () => {
    const host = await startHost([
      "--max-rss-mb",
      "300",
      "--warm-workers",
      "0",
      "--allow-fault-injection",
      "--hibernate-after-ms",
      "0",
    ]);
    try {
      const cwdB = tempDir();
      const b = (await host.client.newSession(cwdB)).sessionId;
      expect((await host.client.prompt(b, "hi")).text).toBe("You said: hi");
      await host.client.close(b);
      const a = (await host.client.newSession(tempDir())).sessionId;
      // A's worker now holds 300 MB of heap: the host is over its limit, A is idle.
      expect((await host.client.prompt(a, script({ alloc_mb: 300 }, { say: "holding" }))).text).toBe("holding");
      expect((await host.client.stats()).memory.rssBytes).toBeGreaterThan(300 * 2 ** 20);
      await host.client.request<ResumeSessionResponse>("session/resume", { sessionId: b, cwd: cwdB, mcpServers: [] });
      expect((await host.client.prompt(b, "after")).text).toBe("You said: after");
      await waitFor("the hibernation", () =>
        host.stderr().includes("host at --max-rss-mb: least recently used idle session"),
      );
      // A comes back from its log on its next prompt.
      expect((await host.client.prompt(a, "back")).text).toBe("You said: back");
    } finally {
      await host.dispose();
    }
  });

  it("lets session/new in once the busy sessions holding the memory are cancelled: idle, they hibernate to make room", async () => {
    const host = await startHost(["--max-rss-mb", "300", "--warm-workers", "0", "--allow-fault-injection"]);
    try {
      const a = (await host.client.newSession(tempDir())).sessionId;
      const turn = host.client.prompt(a, script({ alloc_mb: 300 }, { sleep_ms: 120_000 }));
      await waitFor("A's worker to hold its memory", async () =>
        (await host.client.stats()).memory.rssBytes > 300 * 2 ** 20 ? true : null,
      );
      await expect(host.client.newSession(tempDir())).rejects.toMatchObject({
        code: -32603,
        data: expect.objectContaining({ reason: "MEMORY_LIMIT" }),
      });
      await host.client.cancel(a);
      expect((await turn).stopReason).toBe("cancelled");
      // A is idle now, so it is hibernated for the new session, at once: not refused until its idle timer.
      const b = (await host.client.newSession(tempDir())).sessionId;
      expect(host.stderr()).toContain("host at --max-rss-mb: least recently used idle session");
      expect((await host.client.stats()).memory.rssBytes).toBeLessThan(300 * 2 ** 20);
      expect((await host.client.prompt(b, "in")).text).toBe("You said: in");
      expect((await host.client.prompt(a, "back")).text).toBe("You said: back");
    } finally {
      await host.dispose();
    }
  });
});
