// The `_host/mcp_status` ACP extension notification: one MCP server of a session is connecting, connected (with
// the tools it offers, as the model sees their names) or failed (with why). Sent by the host, read by clients.
import { z } from "zod";

export const MCP_STATUS_METHOD = "_host/mcp_status";

export const McpStatusNotification = z.object({
  sessionId: z.string(),
  server: z.string(),
  status: z.enum(["connecting", "connected", "failed"]),
  tools: z.array(z.string()),
  message: z.string().nullable(),
});
export type McpStatusNotification = z.infer<typeof McpStatusNotification>;
