// The session log says which MCP servers the session runs with (names of env variables and headers, never their
// values), once per change: session/new with servers, and each load or resume that passes other ones.
import { recordOf, type McpServerConfig } from "../../src/protocol/mcp-servers.js";
import type { Journal } from "../log/journal.js";

export function recordMcpServers(journal: Journal, servers: readonly McpServerConfig[]): void {
  const records = servers.map(recordOf);
  const last = journal.entries().findLast((entry) => entry.type === "mcp_servers");
  const before = last?.type === "mcp_servers" ? last.servers : [];
  if (JSON.stringify(before) !== JSON.stringify(records)) journal.append({ type: "mcp_servers", servers: records });
}
