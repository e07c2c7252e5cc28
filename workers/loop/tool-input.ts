// Checks a model's tool call before anything runs. A call the model got wrong (a tool that does not exist,
// arguments that are not JSON, arguments the tool's schema refuses) becomes a failed tool result whose text tells
// the model what to fix; the turn goes on.
import * as z from "zod/mini";
import type { ToolCallRequest } from "../models/model.js";
import type { Tool } from "../tools/tool.js";

export type ToolInputCheck = { ok: true; tool: Tool; input: unknown } | { ok: false; error: string };

/** Raw arguments quoted back to the model at most this long. */
const QUOTE_CHARS = 500;

export function checkToolInput(
  call: ToolCallRequest,
  tool: Tool | undefined,
  toolNames: readonly string[],
): ToolInputCheck {
  if (!tool) return { ok: false, error: `unknown tool "${call.name}" (the tools are: ${toolNames.join(", ")})` };
  // The stream assembler keeps arguments that are not JSON as the raw string.
  if (typeof call.input === "string") {
    return {
      ok: false,
      error: `the arguments of ${call.name} are not valid JSON (${jsonError(call.input)}); they were: ${quote(call.input)}`,
    };
  }
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success)
    return {
      ok: false,
      error: `invalid arguments for ${call.name}: ${z.prettifyError(parsed.error).replaceAll("\n", " ")}`,
    };
  return { ok: true, tool, input: parsed.data };
}

function jsonError(text: string): string {
  try {
    JSON.parse(text);
    return "not a JSON object";
  } catch (error) {
    return (error as Error).message;
  }
}

function quote(text: string): string {
  return text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}… (${text.length} characters)` : text;
}
