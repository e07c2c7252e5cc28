// MCP servers belong to their session: two sessions with servers of the same name see only their own tools and
// processes, and a stdio server is confined like bash (a read-only session's filesystem server cannot write).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import {
  PATIENT,
  everythingStdio,
  filesystemStdio,
  marker,
  mcpStatuses,
  processesWith,
  serverPids,
  statusOf,
} from "../support/mcp.js";
import { resultOf, script, tool, waitFor } from "../support/tools.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-fixture-server.mjs", import.meta.url));

describe("MCP servers per session", () => {
  let host: TestHost;
  let heard: ReturnType<typeof mcpStatuses>;
  beforeAll(async () => {
    host = await startHost(["--default-mode", "auto", ...PATIENT], "allow");
    heard = mcpStatuses(host.client);
  });
  afterAll(async () => {
    await host.dispose();
  });

  it("two sessions with servers of the same name see only their own tools and processes", async () => {
    const [markA, markB] = [marker(), marker()];
    const a = await host.client.newSession(tempDir(), { mcpServers: [everythingStdio("srv", markA)] });
    const b = await host.client.newSession(tempDir(), {
      mcpServers: [{ name: "srv", command: process.execPath, args: [FIXTURE, markB], env: [] }],
    });
    const [ra, rb] = await Promise.all([
      host.client.prompt(a.sessionId, script(tool("mcp__srv__echo", { message: "a" }), tool("mcp__srv__grow", {}))),
      host.client.prompt(b.sessionId, script(tool("mcp__srv__grow", {}), tool("mcp__srv__echo", { message: "b" }))),
    ]);
    expect(ra.toolCalls.map(resultOf)).toEqual(["Echo: a", expect.stringContaining('unknown tool "mcp__srv__grow"')]);
    expect(rb.toolCalls.map(resultOf)).toEqual(["grew", expect.stringContaining('unknown tool "mcp__srv__echo"')]);
    expect((await statusOf(heard, a.sessionId, "srv", "connected")).tools).not.toContain("mcp__srv__grow");
    expect((await statusOf(heard, b.sessionId, "srv", "connected")).tools).toEqual([
      "mcp__srv__grow",
      "mcp__srv__die",
      "mcp__srv__big",
    ]);
    expect(serverPids(markA)).toHaveLength(1);
    expect(serverPids(markB)).toHaveLength(1);
    // One session's end is not the other's.
    await host.client.close(a.sessionId);
    await waitFor("session a's server to end", () => processesWith(markA).length === 0);
    expect(serverPids(markB)).toHaveLength(1);
    expect(resultOf((await host.client.prompt(b.sessionId, script(tool("mcp__srv__grown", {})))).toolCalls[0])).toBe(
      "grown here",
    );
  });

  it("a read-only session's filesystem server cannot write its workspace; an auto session's can", async () => {
    const readOnly = tempDir();
    const writable = tempDir();
    writeFileSync(join(readOnly, "seen.txt"), "visible\n");
    const ro = await host.client.newSession(readOnly, {
      mode: "read-only",
      mcpServers: [filesystemStdio("fs", readOnly, marker())],
    });
    const rw = await host.client.newSession(writable, { mcpServers: [filesystemStdio("fs", writable, marker())] });
    const write = (dir: string) =>
      script(
        tool("mcp__fs__read_text_file", { path: join(dir, "seen.txt") }),
        tool("mcp__fs__write_file", { path: join(dir, "new.txt"), content: "written" }),
      );
    writeFileSync(join(writable, "seen.txt"), "visible\n");
    const [roResult, rwResult] = await Promise.all([
      host.client.prompt(ro.sessionId, write(readOnly)),
      host.client.prompt(rw.sessionId, write(writable)),
    ]);
    expect(resultOf(roResult.toolCalls[0])).toContain("visible");
    expect(roResult.toolCalls[1]!.status).toBe("failed");
    expect(resultOf(roResult.toolCalls[1])).toMatch(/EROFS|read-only/i);
    expect(existsSync(join(readOnly, "new.txt"))).toBe(false);
    expect(rwResult.toolCalls.map((call) => call.status)).toEqual(["completed", "completed"]);
    expect(readFileSync(join(writable, "new.txt"), "utf8")).toBe("written");
  });

  it("switching to read-only restarts a session's stdio servers in the read-only sandbox", async () => {
    const dir = tempDir();
    const { sessionId } = await host.client.newSession(dir, { mcpServers: [filesystemStdio("fs", dir, marker())] });
    const write = (name: string) => script(tool("mcp__fs__write_file", { path: join(dir, name), content: name }));
    expect((await host.client.prompt(sessionId, write("before.txt"))).toolCalls[0]!.status).toBe("completed");
    await host.client.setMode(sessionId, "read-only");
    const after = await host.client.prompt(sessionId, write("after.txt"));
    expect(after.toolCalls[0]!.status).toBe("failed");
    expect(existsSync(join(dir, "before.txt"))).toBe(true);
    expect(existsSync(join(dir, "after.txt"))).toBe(false);
  });
});
