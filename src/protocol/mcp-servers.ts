// A session's MCP servers as they cross the port to its worker (with their env and header values), and as the
// session log records them (names of env variables and headers only: their values may be secrets).
import * as z from "zod/mini";

const ServerName = z.string().check(z.minLength(1), z.maxLength(64));

// Both built on their first parse: most sessions have no MCP server (docs/performance.md, "Measured
// choices in the code").
export const McpServerConfig = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("stdio"),
      name: ServerName,
      command: z.string().check(z.minLength(1)),
      args: z.array(z.string()),
      env: z.record(z.string(), z.string()),
    }),
    z.object({
      type: z.literal("http"),
      name: ServerName,
      url: z.string().check(z.minLength(1)),
      headers: z.record(z.string(), z.string()),
    }),
  ]),
);
export type McpServerConfig = z.infer<typeof McpServerConfig>;

export const McpServerRecord = z.lazy(() =>
  z.discriminatedUnion("type", [
    z.object({
      type: z.literal("stdio"),
      name: ServerName,
      command: z.string(),
      args: z.array(z.string()),
      envNames: z.array(z.string()),
    }),
    z.object({ type: z.literal("http"), name: ServerName, url: z.string(), headerNames: z.array(z.string()) }),
  ]),
);
export type McpServerRecord = z.infer<typeof McpServerRecord>;

export function recordOf(server: McpServerConfig): McpServerRecord {
  if (server.type === "stdio")
    return {
      type: "stdio",
      name: server.name,
      command: server.command,
      args: server.args,
      envNames: Object.keys(server.env),
    };
  return { type: "http", name: server.name, url: server.url, headerNames: Object.keys(server.headers) };
}

export const McpServerStatus = z.enum(["connecting", "connected", "failed"]);
export type McpServerStatus = z.infer<typeof McpServerStatus>;

/** The name a server's tool is offered to the model under. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}
