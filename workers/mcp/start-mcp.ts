// Loads the MCP client bundle for a session that has MCP servers; a session without any never loads a byte of it.
import type { McpSource, McpSourceOptions } from "./mcp-client.js";

export async function startMcp(options: McpSourceOptions): Promise<McpSource> {
  const { McpSource: Source } = await import("./mcp-client.js");
  return new Source(options);
}
