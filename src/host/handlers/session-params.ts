// The params of session/new, load and resume, parsed here rather than by the SDK: its schema drops what it does not
// know of an MCP server (a `type` it has no variant for), and an unknown transport must be refused, naming the
// server, not run as something else.
import { z } from "zod";

const NameValue = z.object({ name: z.string(), value: z.string() });

/** One entry of mcpServers as the client sent it; mcp-servers.ts decides what it is. */
export const McpServerInput = z.object({
  name: z.string(),
  type: z.string().optional(),
  command: z.string().optional(),
  args: z.array(z.string()).nullish(),
  env: z.array(NameValue).nullish(),
  url: z.string().optional(),
  headers: z.array(NameValue).nullish(),
});
export type McpServerInput = z.infer<typeof McpServerInput>;

const Common = {
  cwd: z.string(),
  mcpServers: z
    .array(McpServerInput)
    .nullable()
    .transform((servers) => servers ?? []),
  additionalDirectories: z.array(z.string()).nullish(),
  // Ignored, as the SDK's own schema ignores a malformed one.
  _meta: z.unknown().optional(),
};

export const NewSessionParams = z.object(Common);
export type NewSessionParams = z.infer<typeof NewSessionParams>;

export const OpenSessionParams = z.object({ ...Common, sessionId: z.string() });
export type OpenSessionParams = z.infer<typeof OpenSessionParams>;
