// A percentage flag reads a share however a user writes it: `--compact-at 80`, `80%` and `0.8` are the same threshold
// (a bare number up to 1 is a fraction). Through real hosts against a real HTTP server: each spelling compacts the same
// conversation at the same turn, and a smaller share compacts earlier.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

describe("--compact-at spellings", () => {
  let server: OpenAiTestServer;
  const hosts: TestHost[] = [];

  beforeAll(async () => {
    server = await OpenAiTestServer.start({
      respond: (request) => ({ text: `Noted: ${request.lastUserText}. ${"ok ".repeat(30)}` }),
    });
  });
  afterAll(async () => {
    for (const host of hosts) await host.dispose();
    await server?.close();
  });

  /** The turn whose updates first show a compaction, for the same prompts every time. */
  async function firstCompaction(compactAt: string): Promise<number> {
    const host = await startHost([...server.hostArgs(), "--context-window", "3000", "--compact-at", compactAt]);
    hosts.push(host);
    const { sessionId } = await host.client.newSession(tempDir());
    for (let turn = 1; turn < 100; turn++) {
      const result = await host.client.prompt(sessionId, `item ${turn} of a long list`);
      if (result.updates.some((update) => update.sessionUpdate === "agent_thought_chunk")) return turn;
    }
    throw new Error(`--compact-at ${compactAt}: no compaction in 100 turns`);
  }

  it("80, 80% and 0.8 compact at the same turn; 0.5 and 50% earlier", { timeout: 300_000 }, async () => {
    const at80 = await firstCompaction("80");
    expect(await firstCompaction("80%")).toBe(at80);
    expect(await firstCompaction("0.8")).toBe(at80);
    const at50 = await firstCompaction("0.5");
    expect(await firstCompaction("50%")).toBe(at50);
    expect(at50).toBeLessThan(at80);
  });
});
