// The client's mcpServers (session/new, load, resume) checked and made the worker's: stdio and http servers are
// supported; sse (deprecated) and any other type are refused with -32602 naming the server, never dropped.
import type { McpServerConfig } from "../../protocol/mcp-servers.js";
import { invalidParams } from "../../request-errors.js";
import type { McpServerInput } from "./session-params.js";

/** Server names become part of tool names (mcp__<server>__<tool>), which models accept in this alphabet only. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Each stdio server is a process group (or more): a session gets at most this many servers. */
const MAX_SERVERS = 32;

export function mcpServersFrom(servers: readonly McpServerInput[]): McpServerConfig[] {
  if (servers.length > MAX_SERVERS)
    throw invalidParams("mcpServers", `at most ${MAX_SERVERS} MCP servers per session (${servers.length} given)`);
  const configs: McpServerConfig[] = [];
  const seen = new Set<string>();
  for (const server of servers) {
    const name = server.name;
    if (!NAME.test(name)) {
      throw invalidParams(
        "mcpServers",
        `MCP server name ${JSON.stringify(name)} is not usable: names are 1–64 letters, digits, _ or - (they become part of tool names)`,
        { server: name },
      );
    }
    if (seen.has(name)) throw invalidParams("mcpServers", `MCP server "${name}" is named twice`, { server: name });
    seen.add(name);
    configs.push(configOf(server, name));
  }
  return configs;
}

function configOf(server: McpServerInput, name: string): McpServerConfig {
  const { type } = server;
  if (type === "sse") {
    throw invalidParams(
      "mcpServers",
      `MCP server "${name}": the sse transport is not supported (it is deprecated); use http or stdio`,
      { server: name },
    );
  }
  if (type === "http") {
    let url: URL | null = null;
    try {
      url = new URL(server.url ?? "");
    } catch {
      // answered below
    }
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) {
      throw invalidParams(
        "mcpServers",
        `MCP server "${name}": url must be an http(s) URL, not ${JSON.stringify(server.url ?? null)}`,
        { server: name },
      );
    }
    return {
      type: "http",
      name,
      url: url.href,
      headers: Object.fromEntries((server.headers ?? []).map((header) => [header.name, header.value])),
    };
  }
  if (type === undefined || type === "stdio") {
    if (server.command === undefined || server.command.trim().length === 0) {
      throw invalidParams("mcpServers", `MCP server "${name}": a stdio server needs a command`, { server: name });
    }
    return {
      type: "stdio",
      name,
      command: server.command,
      args: server.args ?? [],
      env: Object.fromEntries((server.env ?? []).map((v) => [v.name, v.value])),
    };
  }
  throw invalidParams(
    "mcpServers",
    `MCP server "${name}": transport ${JSON.stringify(type)} is not supported (this host supports stdio and http)`,
    { server: name },
  );
}
