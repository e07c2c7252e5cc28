// Test support for MCP: the real servers from npm (run as `node <entry>`, so a sandbox needs nothing but node and
// the package on paths it can read), their statuses as the client hears them, and their processes.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk/unstable";

/** A stdio server's entry (the one variant with a command). */
type McpStdioServer = Extract<McpServer, { command: string }>;
import type { HostClient, McpStatusNotification } from "../../src/client/index.js";
import { freePort } from "./free-port.js";
import { waitFor } from "./tools.js";

const require = createRequire(import.meta.url);
const entryOf = (pkg: string) => join(dirname(require.resolve(`${pkg}/package.json`)), "dist", "index.js");

export const EVERYTHING = entryOf("@modelcontextprotocol/server-everything");
export const FILESYSTEM = entryOf("@modelcontextprotocol/server-filesystem");

/** Servers on a machine busy with other tests may take long to start: hosts that do not test the timeout wait for them. */
export const PATIENT = ["--mcp-startup-timeout-ms", "60000"];

/** A marker no other process has on its command line, so a test finds exactly its own servers. */
export const marker = (): string => `mcp-test-${randomUUID()}`;

/** The everything server over stdio; the marker rides as an argument it ignores. */
export function everythingStdio(name: string, mark: string, env: Record<string, string> = {}): McpStdioServer {
  return {
    name,
    command: process.execPath,
    args: [EVERYTHING, "stdio", mark],
    env: Object.entries(env).map(([n, value]) => ({ name: n, value })),
  };
}

export function filesystemStdio(name: string, dir: string, mark: string): McpStdioServer {
  return { name, command: process.execPath, args: [FILESYSTEM, dir, mark], env: [] };
}

/** A program that starts and never answers MCP's initialize. */
export function hangingStdio(name: string, mark: string): McpStdioServer {
  return { name, command: process.execPath, args: ["-e", "setInterval(() => {}, 1e6)", mark], env: [] };
}

/** Every live process (anywhere on the machine) whose command line has the marker. */
export function processesWith(mark: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2)[0] === "Z") continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").includes(mark)) found.push(Number(name));
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** The node process of a server (not the bwrap around it): its command line starts with node. */
export function serverPids(mark: string): number[] {
  return processesWith(mark).filter((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").startsWith(process.execPath));
}

/** Every `_host/mcp_status` the client hears, in order. */
export function mcpStatuses(client: HostClient): McpStatusNotification[] {
  const heard: McpStatusNotification[] = [];
  client.onMcpStatus((status) => heard.push(status));
  return heard;
}

/** Waits for a status of a session's server; returns it. */
export function statusOf(
  heard: McpStatusNotification[],
  sessionId: string,
  server: string,
  status: McpStatusNotification["status"],
): Promise<McpStatusNotification> {
  return waitFor(
    `${server} ${status} in ${sessionId}`,
    () => heard.find((s) => s.sessionId === sessionId && s.server === server && s.status === status),
    30_000,
  );
}

export interface HttpServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The everything server in its streamable HTTP mode, on a free port of 127.0.0.1. */
export async function everythingHttp(): Promise<HttpServer> {
  const port = await freePort();
  const child = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (log += chunk));
  await waitFor(
    "the http everything server to listen",
    () => log.includes(`port ${port}`) || child.exitCode !== null,
    30_000,
  );
  if (child.exitCode !== null) throw new Error(`the http everything server exited: ${log}`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill();
      await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}
