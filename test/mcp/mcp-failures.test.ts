// MCP servers that fail: a command that does not exist, one that never answers initialize, one whose process dies
// mid-call. Each is reported failed with a clear message and left out; the session, its other servers and other
// sessions go on; session/new never waits for any server.
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descendants, startHost, tempDir, type TestHost } from "../support/host.js";
import {
  PATIENT,
  everythingStdio,
  hangingStdio,
  marker,
  mcpStatuses,
  processesWith,
  serverPids,
  statusOf,
} from "../support/mcp.js";
import { cmdline, resultOf, script, tool, waitFor } from "../support/tools.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-fixture-server.mjs", import.meta.url));

describe("MCP servers that fail", () => {
  let host: TestHost;
  let heard: ReturnType<typeof mcpStatuses>;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "auto", "--mcp-startup-timeout-ms", "8000"]);
    heard = mcpStatuses(host.client);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("a missing command and a server that hangs at startup fail alone; session/new answers before any server is up", async () => {
    const hang = marker();
    const servers = [
      everythingStdio("good", marker()),
      { name: "missing", command: "/no/such/mcp-server", args: [], env: [] },
      hangingStdio("hang", hang),
    ];
    const { sessionId } = await host.client.newSession(tempDir(), { mcpServers: servers });
    // The answer came first: no server of the session had even started connecting.
    expect(heard.filter((status) => status.sessionId === sessionId)).toEqual([]);
    const other = await host.client.newSession(tempDir());
    const [result, otherResult] = await Promise.all([
      host.client.prompt(
        sessionId,
        script(tool("mcp__good__echo", { message: "still here" }), tool("mcp__hang__anything", {})),
      ),
      host.client.prompt(other.sessionId, "hello"),
    ]);
    expect(otherResult.text).toBe("You said: hello");
    expect(resultOf(result.toolCalls[0])).toBe("Echo: still here");
    expect(resultOf(result.toolCalls[1])).toContain('unknown tool "mcp__hang__anything"');
    const missing = await statusOf(heard, sessionId, "missing", "failed");
    expect(missing.message).toContain("/no/such/mcp-server");
    const hung = await statusOf(heard, sessionId, "hang", "failed");
    expect(hung.message).toContain("did not connect within --mcp-startup-timeout-ms 8000");
    // The hung server was ended when it was left out.
    await waitFor("the hung server's processes to end", () => processesWith(hang).length === 0);
    expect((await statusOf(heard, sessionId, "good", "connected")).tools).toContain("mcp__good__echo");
  });

  it("a server whose process dies mid-call fails that call with why, and the session and its other servers go on", async () => {
    const fixture = { name: "fix", command: process.execPath, args: [FIXTURE, marker()], env: [] };
    const { sessionId } = await host.client.newSession(tempDir(), {
      mcpServers: [fixture, everythingStdio("good", marker())],
    });
    const result = await host.client.prompt(
      sessionId,
      script(tool("mcp__fix__die", {}), tool("mcp__fix__grow", {}), tool("mcp__good__echo", { message: "after" })),
    );
    const [died, gone, after] = result.toolCalls.map(resultOf);
    expect(result.toolCalls[0]!.status).toBe("failed");
    expect(died).toContain('MCP server "fix" failed during the call of die');
    expect(died).toContain("dying on purpose");
    expect(gone).toContain('unknown tool "mcp__fix__grow"');
    expect(after).toBe("Echo: after");
    expect(result.stopReason).toBe("end_turn");
    const failed = await statusOf(heard, sessionId, "fix", "failed");
    expect(failed.message).toContain("exit code 3");
    const next = await host.client.prompt(sessionId, script(tool("mcp__good__echo", { message: "next turn" })));
    expect(resultOf(next.toolCalls[0])).toBe("Echo: next turn");
  });

  it("if the spawner dies, its servers die with it and fail; they start again through the new spawner", async () => {
    const other = await startHost(["--default-mode", "auto", ...PATIENT]);
    try {
      const statuses = mcpStatuses(other.client);
      const mark = marker();
      const { sessionId } = await other.client.newSession(tempDir(), {
        mcpServers: [everythingStdio("everything", mark)],
      });
      expect(
        resultOf(
          (await other.client.prompt(sessionId, script(tool("mcp__everything__echo", { message: "one" }))))
            .toolCalls[0],
        ),
      ).toBe("Echo: one");
      const [first] = serverPids(mark);
      const [spawner] = descendants(other.pid).filter((pid) => cmdline(pid).includes("spawner/main.js"));
      process.kill(spawner!, "SIGKILL");
      expect((await statusOf(statuses, sessionId, "everything", "failed")).message).toContain(
        "the connection to the command runner closed",
      );
      await waitFor("the new spawner", () => other.stderr().includes("spawner restarted"));
      await waitFor("the server started again", () => serverPids(mark).some((pid) => pid !== first));
      expect(
        resultOf(
          (await other.client.prompt(sessionId, script(tool("mcp__everything__echo", { message: "two" }))))
            .toolCalls[0],
        ),
      ).toBe("Echo: two");
    } finally {
      await other.dispose();
    }
  });
});
