// No MCP server process outlives what ends it: session/close, session/delete, hibernation, a worker crash, the hard
// cancel of a wedged worker, and host teardown. After hibernation and a crash, the next prompt reconnects them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { PATIENT, everythingStdio, marker, mcpStatuses, processesWith, serverPids, statusOf } from "../support/mcp.js";
import { resultOf, script, tool, waitFor } from "../support/tools.js";

const echo = (message: string) => script(tool("mcp__everything__echo", { message }));

describe("MCP server processes end with what ends them", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost([
      "--default-mode",
      "auto",
      "--allow-fault-injection",
      "--cancel-grace-ms",
      "300",
      ...PATIENT,
    ]);
  });
  afterAll(async () => {
    await host.dispose();
  });

  /** A session whose everything server answered a call; its server's processes. */
  async function connected(client = host.client): Promise<{ sessionId: string; mark: string; cwd: string }> {
    const mark = marker();
    const cwd = tempDir();
    const { sessionId } = await client.newSession(cwd, { mcpServers: [everythingStdio("everything", mark)] });
    expect(resultOf((await client.prompt(sessionId, echo("up"))).toolCalls[0])).toBe("Echo: up");
    expect(serverPids(mark)).toHaveLength(1);
    return { sessionId, mark, cwd };
  }

  const gone = (mark: string) => waitFor(`no process with ${mark}`, () => processesWith(mark).length === 0);

  it("session/close", async () => {
    const { sessionId, mark } = await connected();
    await host.client.close(sessionId);
    await gone(mark);
  });

  it("session/delete", async () => {
    const { sessionId, mark } = await connected();
    await host.client.delete(sessionId);
    await gone(mark);
  });

  it("a worker crash; the next prompt reconnects", async () => {
    const { sessionId, mark } = await connected();
    const before = serverPids(mark);
    await expect(host.client.prompt(sessionId, script({ crash: "boom" }))).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "WORKER_FAILED" }),
    });
    await gone(mark);
    expect(resultOf((await host.client.prompt(sessionId, echo("again"))).toolCalls[0])).toBe("Echo: again");
    const after = serverPids(mark);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it("the hard cancel of a wedged worker", async () => {
    const { sessionId, mark } = await connected();
    // The call's end is seen before the worker spins: the cancel reaches a worker whose event loop is blocked.
    let called = false;
    const turn = host.client.prompt(
      sessionId,
      script(tool("mcp__everything__echo", { message: "x" }), { spin_ms: 60_000 }),
      {
        onUpdate: (update) => (called ||= update.sessionUpdate === "tool_call_update" && update.status === "completed"),
      },
    );
    await waitFor("the call before the spin", () => called);
    await host.client.cancel(sessionId);
    expect((await turn).stopReason).toBe("cancelled");
    await gone(mark);
  });

  it("hibernation; the next prompt reconnects before it runs", async () => {
    const sleepy = await startHost(["--default-mode", "auto", "--hibernate-after-ms", "300", ...PATIENT]);
    try {
      const heard = mcpStatuses(sleepy.client);
      const { sessionId, mark } = await connected(sleepy.client);
      const connecting = () =>
        heard.filter((status) => status.sessionId === sessionId && status.status === "connecting").length;
      await waitFor("the first connecting status", () => connecting() > 0);
      const before = connecting();
      await gone(mark);
      const result = await sleepy.client.prompt(sessionId, echo("woken"));
      expect(resultOf(result.toolCalls[0])).toBe("Echo: woken");
      expect(connecting()).toBe(before + 1);
      await statusOf(heard, sessionId, "everything", "connected");
    } finally {
      await sleepy.dispose();
    }
  });

  it("host teardown", async () => {
    const other = await startHost(["--default-mode", "auto", ...PATIENT]);
    const { mark } = await connected(other.client);
    await other.dispose();
    await gone(mark);
  });
});
