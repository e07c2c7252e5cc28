// Checks one parsed log line against the log's entry schema (LogEntry in src/protocol/log/session-log.ts) by hand: a
// restore and a replay check every line, and the schema's parse cost as much as JSON.parse itself. It accepts
// exactly what the schema accepts (test/unit/log-entry-check.test.ts holds it to that); enums and the rare model and
// mcp_servers entries are left to the schema's own parts.
import { Budget } from "../../src/protocol/budget.js";
import { McpServerRecord } from "../../src/protocol/mcp-servers.js";
import { PlanEntry } from "../../src/protocol/plan.js";
import { ModelConfig, SessionModeId, StopReason, ToolKind } from "../../src/protocol/port.js";
import { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import type { LogEntry } from "../../src/protocol/log/session-log.js";

type Json = Record<string, unknown>;

const isString = (value: unknown): value is string => typeof value === "string";
const isId = (value: unknown): boolean => typeof value === "string" && value.length > 0;
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isOptionalString = (value: unknown): boolean => value === undefined || typeof value === "string";
/** A set, not the enum's parse: a long log has a tool call every few lines, and a fresh thread would build its parser. */
const TOOL_KINDS: ReadonlySet<unknown> = new Set(ToolKind.options);

/** `input` may be any JSON, but is there. */
function isToolCallRequest(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    isString((value as Json).id) &&
    isString((value as Json).name) &&
    Object.hasOwn(value, "input")
  );
}

const CHECKS: Record<LogEntry["type"], (entry: Json) => boolean> = {
  turn_start: (e) => isId(e.turnId) && isString(e.at),
  user_message: (e) => isId(e.turnId) && isString(e.text),
  assistant_message: (e) =>
    isId(e.turnId) &&
    Array.isArray(e.blocks) &&
    e.blocks.every(isString) &&
    Array.isArray(e.toolCalls) &&
    e.toolCalls.every(isToolCallRequest) &&
    isOptionalString(e.thought),
  compaction: (e) =>
    isId(e.turnId) &&
    isCount(e.kept) &&
    isString(e.summary) &&
    isCount(e.turns) &&
    isCount(e.tokensBefore) &&
    isCount(e.tokensAfter) &&
    (e.level === undefined || e.level === "normal" || e.level === "hard") &&
    (e.replacedTokens === undefined || isCount(e.replacedTokens)) &&
    (e.compactionId === undefined || isId(e.compactionId)),
  tool_call: (e) =>
    isId(e.turnId) &&
    isId(e.toolCallId) &&
    isString(e.callId) &&
    isString(e.name) &&
    isString(e.title) &&
    TOOL_KINDS.has(e.kind) &&
    Object.hasOwn(e, "input"),
  tool_result: (e) =>
    isId(e.turnId) &&
    isId(e.toolCallId) &&
    isString(e.callId) &&
    isString(e.name) &&
    isString(e.result) &&
    typeof e.isError === "boolean",
  usage: (e) => {
    const tokens = e.tokens as Json | null | undefined;
    return (
      isId(e.turnId) &&
      typeof tokens === "object" &&
      tokens !== null &&
      !Array.isArray(tokens) &&
      isCount(tokens.prompt) &&
      isCount(tokens.completion) &&
      isCount(tokens.cached)
    );
  },
  permission: (e) => isId(e.turnId) && isId(e.toolCallId) && isString(e.outcome),
  mode: (e) => SessionModeId.safeParse(e.mode).success,
  system_prompt: (e) => SystemPromptSetting.safeParse(e.systemPrompt).success,
  budget: (e) => Budget.safeParse(e.budget).success,
  plan: (e) =>
    isId(e.turnId) && Array.isArray(e.entries) && e.entries.every((entry) => PlanEntry.safeParse(entry).success),
  model: (e) => ModelConfig.safeParse(e.model).success,
  mcp_servers: (e) =>
    Array.isArray(e.servers) && e.servers.every((server) => McpServerRecord.safeParse(server).success),
  turn_end: (e) =>
    isId(e.turnId) &&
    (e.stopReason === "error" || e.stopReason === "interrupted" || StopReason.safeParse(e.stopReason).success) &&
    isOptionalString(e.error),
};

/** The entry, or null when it is not one. A model entry is returned as the schema parses it (its defaults filled). */
export function asLogEntry(json: unknown): LogEntry | null {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return null;
  const entry = json as Json;
  const type = entry.type;
  if (typeof type !== "string" || !Object.hasOwn(CHECKS, type)) return null;
  if (!CHECKS[type as LogEntry["type"]](entry)) return null;
  if (type === "model") return { type: "model", model: ModelConfig.parse(entry.model) };
  return entry as LogEntry;
}
