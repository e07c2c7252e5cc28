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

/** ACP's SystemPrompt as the client sent it; system-prompt.ts decides whether this host can apply it. */
export const SystemPromptInput = z.object({ mode: z.string(), content: z.array(z.unknown()) });
export type SystemPromptInput = z.infer<typeof SystemPromptInput>;

const Common = {
  cwd: z.string(),
  mcpServers: z
    .array(McpServerInput)
    .nullable()
    .transform((servers) => servers ?? []),
  additionalDirectories: z.array(z.string()).nullish(),
  systemPrompt: SystemPromptInput.nullish(),
  // Ignored, as the SDK's own schema ignores a malformed one.
  _meta: z.unknown().optional(),
};

export const NewSessionParams = z.object(Common);
export type NewSessionParams = z.infer<typeof NewSessionParams>;

export const OpenSessionParams = z.object({ ...Common, sessionId: z.string() });
export type OpenSessionParams = z.infer<typeof OpenSessionParams>;

/** session/fork: mcpServers may be left out (ACP's schema has no default for it there). */
export const ForkSessionParams = z.object({
  ...Common,
  mcpServers: Common.mcpServers.optional().transform((servers) => servers ?? []),
  sessionId: z.string(),
});
export type ForkSessionParams = z.infer<typeof ForkSessionParams>;
