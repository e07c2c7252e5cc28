// Scenario 9: MCP servers. session/new p50 with 0 and with 3 stdio MCP servers per session (the servers connect in
// the background, so the two should be equal within noise); the time from session/new to the last of the three
// servers' tool lists (`_host/mcp_status` connected); and an MCP tool call through the host (from its tool_call to
// its completion as the client sees them) against the same call from a direct MCP client in this process.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import type { HostClient, McpStatusNotification } from "../../src/client/index.js";
import type { BenchContext } from "../context.js";
import { repeat } from "../context.js";
import { waitForIdle } from "../support/proc.js";
import { figures, summarize, type Figure } from "../support/stats.js";
import { startHost, withSystem } from "../support/systems.js";
import { fmt, plural, table } from "../support/markdown.js";
import type { Scenario } from "../scenario.js";

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist",
  "index.js",
);
const everything = (name: string): McpServer => ({
  name,
  command: process.execPath,
  args: [EVERYTHING, "stdio"],
  env: [],
});

const KEYS = ["newP50NoMcp", "newP50ThreeMcp", "toolListP50", "hostCallP50", "directCallP50", "overheadP50"] as const;
type Key = (typeof KEYS)[number];

export interface McpResult {
  runs: number;
  samples: number;
  figures: Record<Key, Figure>;
}

export async function mcp(ctx: BenchContext): Promise<McpResult> {
  const runs = ctx.quick ? 1 : 3;
  const samples = ctx.quick ? 2 : 16;
  const results = await repeat(ctx, "mcp", runs, () =>
    withSystem(startHost(["--default-mode", "auto"]), async ({ client, pid }) => {
      const statuses: McpStatusNotification[] = [];
      client.onMcpStatus((status) => statuses.push(status));
      await waitForIdle(pid);
      const bare: number[] = [];
      for (let i = 0; i < samples; i++) {
        const sent = performance.now();
        const { sessionId } = await client.newSession(ctx.cwd);
        bare.push(performance.now() - sent);
        await client.close(sessionId);
      }
      await waitForIdle(pid);
      const withServers: number[] = [];
      const toolLists: number[] = [];
      for (let i = 0; i < samples; i++) {
        const sent = performance.now();
        const { sessionId } = await client.newSession(ctx.cwd, {
          mcpServers: [everything("a"), everything("b"), everything("c")],
        });
        withServers.push(performance.now() - sent);
        await until(() => statuses.filter((s) => s.sessionId === sessionId && s.status !== "connecting").length >= 3);
        toolLists.push(performance.now() - sent);
        await client.close(sessionId);
      }
      const host = await hostCalls(client, ctx.cwd, samples);
      const direct = await directCalls(samples);
      return {
        newP50NoMcp: summarize(bare).p50,
        newP50ThreeMcp: summarize(withServers).p50,
        toolListP50: summarize(toolLists).p50,
        hostCallP50: host,
        directCallP50: direct,
        overheadP50: host - direct,
      };
    }),
  );
  return { runs, samples, figures: figures(results, KEYS) };
}

/** p50 of an echo call through the host, from its tool_call to its completion. */
async function hostCalls(client: HostClient, cwd: string, samples: number): Promise<number> {
  const { sessionId } = await client.newSession(cwd, { mcpServers: [everything("e")] });
  const call = `/script ${JSON.stringify([{ tool: "mcp__e__echo", input: { message: "bench" } }])}`;
  await client.prompt(sessionId, call); // connects the server
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    let callAt = Number.NaN;
    let endAt = Number.NaN;
    const result = await client.prompt(sessionId, call, {
      onUpdate: (update) => {
        if (update.sessionUpdate === "tool_call") callAt = performance.now();
        if (
          update.sessionUpdate === "tool_call_update" &&
          (update.status === "completed" || update.status === "failed")
        )
          endAt = performance.now();
      },
    });
    if (result.toolCalls[0]?.status !== "completed")
      throw new Error(`the MCP call failed: ${JSON.stringify(result.toolCalls[0])}`);
    times.push(endAt - callAt);
  }
  await client.close(sessionId);
  return summarize(times).p50;
}

/** p50 of the same call from an MCP client of this process, the server spawned directly. */
async function directCalls(samples: number): Promise<number> {
  const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, "stdio"], stderr: "ignore" }),
  );
  try {
    await client.callTool({ name: "echo", arguments: { message: "bench" } });
    const times: number[] = [];
    for (let i = 0; i < samples; i++) {
      const started = performance.now();
      await client.callTool({ name: "echo", arguments: { message: "bench" } });
      times.push(performance.now() - started);
    }
    return summarize(times).p50;
  } finally {
    await client.close();
  }
}

async function until(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("MCP servers did not report within a minute");
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const scenario: Scenario<McpResult> = {
  order: 9,
  key: "mcp",
  flag: "mcp",
  title: "9. MCP servers",
  run: mcp,
  section: (m) => [
    `${plural(m.runs, "run")}, ${m.samples} samples each, mode auto. session/new with no MCP server and with 3 stdio servers (the everything ` +
      "server, run by the spawner in the session's sandbox); the first tool list is session/new until all 3 servers reported `_host/mcp_status`; " +
      "an echo call through the host (tool_call to completion) against the same call from an MCP client in the benchmark process.",
    "",
    table(
      [
        "session/new p50, 0 servers",
        "session/new p50, 3 servers",
        "first tool lists p50",
        "call via host p50",
        "direct call p50",
        "overhead p50",
      ],
      [
        [
          fmt(m.figures.newP50NoMcp),
          fmt(m.figures.newP50ThreeMcp),
          fmt(m.figures.toolListP50),
          fmt(m.figures.hostCallP50),
          fmt(m.figures.directCallP50),
          fmt(m.figures.overheadP50),
        ],
      ],
    ),
  ],
};
