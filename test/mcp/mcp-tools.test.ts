// MCP servers' tools through a real host: the everything server over stdio (started by the spawner in the session's
// sandbox) and over streamable HTTP, a call round trip in ask mode (the client is asked, naming server and tool, and
// its answer holds) and in auto mode; statuses, kinds, env, capped results, list changes, and what the log keeps.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import {
  EVERYTHING,
  PATIENT,
  everythingHttp,
  everythingStdio,
  marker,
  mcpStatuses,
  statusOf,
  type HttpServer,
} from "../support/mcp.js";
import { bash, resultOf, results, script, tool } from "../support/tools.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/mcp-fixture-server.mjs", import.meta.url));
const answer = (optionId: "allow_once" | "allow_always" | "reject_once"): RequestPermissionResponse => ({
  outcome: { outcome: "selected", optionId },
});

describe("MCP tools", () => {
  let host: TestHost;
  let http: HttpServer;
  let stateDir: string;
  const asked: RequestPermissionRequest[] = [];
  const answers = new Map<string, () => RequestPermissionResponse>();
  let heard: ReturnType<typeof mcpStatuses>;
  beforeAll(async () => {
    stateDir = tempDir("ash-state-");
    [host, http] = await Promise.all([
      startHost(
        ["--state-dir", stateDir, "--output-cap-bytes", "2048", ...PATIENT],
        (request) => {
          asked.push(request);
          return answers.get(request.sessionId)?.() ?? answer("allow_once");
        },
        { ...process.env, HOST_SECRET_FOR_TEST: "do-not-leak" },
      ),
      everythingHttp(),
    ]);
    heard = mcpStatuses(host.client);
  });
  afterAll(async () => {
    await host.dispose();
    await http.stop();
  });

  const askedBy = (sessionId: string) => asked.filter((request) => request.sessionId === sessionId);

  it("advertises http MCP servers, not sse", () => {
    expect(host.client.initializeResponse.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true, sse: false });
  });

  it.each(["stdio", "http"] as const)(
    "over %s, ask mode asks naming server and tool, and runs the call once allowed",
    async (transport) => {
      const server =
        transport === "stdio"
          ? everythingStdio("everything", marker())
          : { type: "http" as const, name: "everything", url: http.url, headers: [] };
      const { sessionId } = await host.client.newSession(tempDir(), { mcpServers: [server] });
      const result = await host.client.prompt(
        sessionId,
        script(tool("mcp__everything__echo", { message: `hi over ${transport}` })),
      );
      expect(results(result)).toEqual([`Echo: hi over ${transport}`]);
      expect(result.toolCalls[0]!.kind).toBe("read"); // readOnlyHint
      const requests = askedBy(sessionId);
      expect(requests).toHaveLength(1);
      expect(requests[0]!.toolCall.title).toContain("echo");
      expect(requests[0]!.toolCall.title).toContain("everything");
      expect(requests[0]!.toolCall.toolCallId).toBe(result.toolCalls[0]!.toolCallId);
      const connected = await statusOf(heard, sessionId, "everything", "connected");
      expect(connected.tools).toContain("mcp__everything__echo");
      expect(heard.findIndex((s) => s.sessionId === sessionId && s.status === "connecting")).toBeLessThan(
        heard.indexOf(connected),
      );
    },
  );

  it.each(["stdio", "http"] as const)("over %s, a refusal is honoured: the server is not called", async (transport) => {
    const server =
      transport === "stdio"
        ? everythingStdio("everything", marker())
        : { type: "http" as const, name: "everything", url: http.url, headers: [] };
    const { sessionId } = await host.client.newSession(tempDir(), { mcpServers: [server] });
    answers.set(sessionId, () => answer("reject_once"));
    const result = await host.client.prompt(
      sessionId,
      script(tool("mcp__everything__get-sum", { a: 1, b: 2 }), { say: "{{result}}" }),
    );
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed"]);
    expect(result.text).toBe("the user refused this tool call");
  });

  it.each(["stdio", "http"] as const)("over %s, auto mode runs calls without asking", async (transport) => {
    const server =
      transport === "stdio"
        ? everythingStdio("everything", marker())
        : { type: "http" as const, name: "everything", url: http.url, headers: [] };
    const { sessionId } = await host.client.newSession(tempDir(), { mode: "auto", mcpServers: [server] });
    const result = await host.client.prompt(sessionId, script(tool("mcp__everything__get-sum", { a: 2, b: 40 })));
    expect(result.toolCalls.map((call) => call.status)).toEqual(["completed"]);
    expect(resultOf(result.toolCalls[0])).toContain("42");
    expect(askedBy(sessionId)).toEqual([]);
  });

  it("a stdio server whose program lies under /tmp runs in a workspace-write session (its /tmp is the host's, read-only)", async () => {
    const dir = tempDir();
    const program = join(dir, "server.mjs");
    writeFileSync(program, `await import(${JSON.stringify(pathToFileURL(EVERYTHING).href)});\n`);
    const { sessionId } = await host.client.newSession(tempDir(), {
      mode: "auto",
      mcpServers: [{ name: "tmp", command: process.execPath, args: [program, "stdio", marker()], env: [] }],
    });
    const result = await host.client.prompt(
      sessionId,
      script(tool("mcp__tmp__get-sum", { a: 1, b: 2 }), bash(`echo x > ${dir}/written`)),
    );
    expect(resultOf(result.toolCalls[0])).toContain("3");
    expect(resultOf(result.toolCalls[1])).toContain("No such file or directory");
  });

  it("allow always holds for that tool in that session only", async () => {
    const mark = marker();
    const { sessionId } = await host.client.newSession(tempDir(), {
      mcpServers: [everythingStdio("everything", mark)],
    });
    answers.set(sessionId, () => answer("allow_always"));
    await host.client.prompt(
      sessionId,
      script(tool("mcp__everything__echo", { message: "1" }), tool("mcp__everything__echo", { message: "2" })),
    );
    await host.client.prompt(
      sessionId,
      script(tool("mcp__everything__echo", { message: "3" }), tool("mcp__everything__get-sum", { a: 1, b: 1 })),
    );
    expect(askedBy(sessionId).map((request) => request.toolCall.title)).toEqual([
      "echo (MCP server everything)",
      "get-sum (MCP server everything)",
    ]);
  });

  it("a stdio server gets the client's env over a minimal base, never the host's", async () => {
    const { sessionId } = await host.client.newSession(tempDir(), {
      mode: "auto",
      mcpServers: [everythingStdio("everything", marker(), { GIVEN_BY_CLIENT: "yes" })],
    });
    const result = await host.client.prompt(sessionId, script(tool("mcp__everything__get-env", {})));
    const env = JSON.parse(resultOf(result.toolCalls[0])) as Record<string, string>;
    expect(env.GIVEN_BY_CLIENT).toBe("yes");
    expect(env.HOST_SECRET_FOR_TEST).toBeUndefined();
    expect(
      Object.keys(env).filter(
        (name) =>
          ![
            "PATH",
            "HOME",
            "USER",
            "LOGNAME",
            "LANG",
            "LANGUAGE",
            "LC_ALL",
            "LC_CTYPE",
            "LC_MESSAGES",
            "TZ",
            "TERM",
            "PAGER",
            "GIT_PAGER",
            "SHLVL",
            "PWD",
            "GIVEN_BY_CLIENT",
          ].includes(name),
      ),
    ).toEqual([]);
  });

  it("results are capped like command output; a changed tool list is offered at the next model request", async () => {
    const fixture = { name: "fix", command: process.execPath, args: [FIXTURE, marker()], env: [] };
    const { sessionId } = await host.client.newSession(tempDir(), { mode: "auto", mcpServers: [fixture] });
    const result = await host.client.prompt(
      sessionId,
      script(tool("mcp__fix__big", { bytes: 100_000 }), tool("mcp__fix__grow", {}), tool("mcp__fix__grown", {})),
    );
    const [big, grew, grown] = results(result);
    expect(Buffer.byteLength(big!)).toBeLessThan(4096);
    expect(big).toContain("bytes of output dropped here (100000 bytes in all)");
    expect(grew).toBe("grew");
    expect(grown).toBe("grown here");
    expect(result.toolCalls.map((call) => call.kind)).toEqual(["other", "other", "read"]);
  });

  it("the log records the servers with env and header names, never their values; load uses the servers passed then", async () => {
    const cwd = tempDir();
    const server = {
      type: "http" as const,
      name: "web",
      url: http.url,
      headers: [{ name: "Authorization", value: "Bearer secret-header-value" }],
    };
    const stdio = everythingStdio("local", marker(), { API_TOKEN: "secret-env-value" });
    const { sessionId } = await host.client.newSession(cwd, { mode: "auto", mcpServers: [server, stdio] });
    await host.client.prompt(
      sessionId,
      script(tool("mcp__web__echo", { message: "a" }), tool("mcp__local__echo", { message: "b" })),
    );
    await host.client.close(sessionId);
    const log = readFileSync(`${stateDir}/sessions/${sessionId}.jsonl`, "utf8");
    expect(log).not.toContain("secret-header-value");
    expect(log).not.toContain("secret-env-value");
    const recorded = log
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type?: string; servers?: unknown[] })
      .filter((entry) => entry.type === "mcp_servers");
    expect(recorded).toEqual([
      {
        type: "mcp_servers",
        servers: [
          { type: "http", name: "web", url: http.url, headerNames: ["Authorization"] },
          { type: "stdio", name: "local", command: process.execPath, args: stdio.args, envNames: ["API_TOKEN"] },
        ],
      },
    ]);
    // Loaded with no servers: their tools are gone.
    await host.client.load(sessionId, cwd);
    const after = await host.client.prompt(sessionId, script(tool("mcp__web__echo", { message: "c" })));
    expect(resultOf(after.toolCalls[0])).toContain('unknown tool "mcp__web__echo"');
    await host.client.close(sessionId);
    const entries = readFileSync(`${stateDir}/sessions/${sessionId}.jsonl`, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type?: string });
    expect(entries.filter((entry) => entry.type === "mcp_servers").at(-1)).toEqual({
      type: "mcp_servers",
      servers: [],
    });
    // Resumed with another server: its tools are the session's now.
    await host.client.resume(sessionId, cwd, { mcpServers: [everythingStdio("later", marker())] });
    const resumed = await host.client.prompt(sessionId, script(tool("mcp__later__echo", { message: "resumed" })));
    expect(resultOf(resumed.toolCalls[0])).toBe("Echo: resumed");
  });

  it("a live session loaded with other servers runs with those from then on", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd, {
      mode: "auto",
      mcpServers: [everythingStdio("first", marker())],
    });
    expect(
      resultOf((await host.client.prompt(sessionId, script(tool("mcp__first__echo", { message: "1" })))).toolCalls[0]),
    ).toBe("Echo: 1");
    await host.client.load(sessionId, cwd, { mcpServers: [everythingStdio("second", marker())] });
    const after = await host.client.prompt(
      sessionId,
      script(tool("mcp__second__echo", { message: "2" }), tool("mcp__first__echo", { message: "3" })),
    );
    expect(resultOf(after.toolCalls[0])).toBe("Echo: 2");
    expect(resultOf(after.toolCalls[1])).toContain('unknown tool "mcp__first__echo"');
  });
});
