// One MCP server tool as the model sees it: mcp__<server>__<tool> with the server's JSON Schema. An MCP tool can do
// anything and its annotations come from code the host does not control: calls are treated like commands (ask and
// read-only modes ask the client), and annotations only choose the tool_call's kind.
import * as z from "zod/mini";
import type { CallToolResult, Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { mcpToolName } from "../../src/protocol/mcp-servers.js";
import type { SessionModeId } from "../../src/protocol/port.js";
import { sha256Hex } from "../sha256.js";
import { CappedOutput } from "../tools/output-cap.js";
import type { Tool, ToolPolicy, ToolResult } from "../tools/tool.js";

/** The server checks arguments against its own schema; the host only makes sure they are a JSON object. */
const Arguments = z.record(z.string(), z.unknown());

export type CallTool = (name: string, args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult>;

export function mcpPolicy(mode: SessionModeId): ToolPolicy {
  return mode === "ask" || mode === "read-only" ? { decision: "ask" } : { decision: "allow" };
}

/** The longest tool name OpenAI-style APIs take. */
export const MAX_TOOL_NAME = 64;

/**
 * Model APIs take tool names of letters, digits, _ and - only, at most 64 of them: a longer name keeps its start and
 * ends in a hash of the whole, so two long names stay apart.
 */
export function offeredName(server: string, tool: string): string {
  const name = mcpToolName(server, tool.replace(/[^A-Za-z0-9_-]/g, "_"));
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = sha256Hex(name).slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - hash.length - 1)}_${hash}`;
}

export function toolsOf(server: string, listed: readonly McpTool[], call: CallTool): Tool[] {
  const tools: Tool<Record<string, unknown>>[] = [];
  const names = new Set<string>();
  for (const tool of listed) {
    const name = offeredName(server, tool.name);
    if (names.has(name)) continue; // two names that differ only in characters models do not take: the first wins
    names.add(name);
    tools.push({
      name,
      description: tool.description ?? tool.title ?? `${tool.name} (MCP server ${server})`,
      kind: tool.annotations?.readOnlyHint === true ? "read" : "other",
      input: Arguments,
      parameters: tool.inputSchema as Record<string, unknown>,
      title: () => `${tool.name} (MCP server ${server})`,
      policy: mcpPolicy,
      run: (input, context) => call(tool.name, input, context.signal),
    });
  }
  return tools as Tool[];
}

/** A tool result's content as text for the model, capped like command output. */
export function renderResult(result: CallToolResult, capBytes: number): ToolResult {
  const capped = new CappedOutput(capBytes);
  const parts = result.content.map((block): string => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
      case "audio":
        return `[${block.type} ${block.mimeType}, ${block.data.length} base64 characters, not shown]`;
      case "resource":
        return "text" in block.resource ? block.resource.text : `[resource ${block.resource.uri}, binary, not shown]`;
      case "resource_link":
        return `[resource ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
      default:
        return "[content of an unknown type, not shown]";
    }
  });
  if (parts.length === 0 && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent));
  capped.push(parts.join("\n"));
  return { output: capped.render("the full result is not kept"), isError: result.isError === true };
}
