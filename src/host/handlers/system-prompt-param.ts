// A client's systemPrompt (session/new, load, resume, fork) checked and made the session's: the append and override
// modes, text content only (ACP: an agent refuses a mode or a content block it does not support, never guesses).
import type { SystemPromptSetting } from "../../protocol/system-prompt.js";
import { invalidParams } from "../../request-errors.js";
import type { SystemPromptInput } from "./session-params.js";

/** undefined: none given (omitted and null are the same). */
export function systemPromptFrom(input: SystemPromptInput | null | undefined): SystemPromptSetting | undefined {
  if (input === null || input === undefined) return undefined;
  if (input.mode !== "append" && input.mode !== "override") {
    throw invalidParams(
      "systemPrompt.mode",
      `unsupported system prompt mode: ${JSON.stringify(input.mode)} (this host supports append and override)`,
    );
  }
  if (input.content.length === 0)
    throw invalidParams("systemPrompt.content", "a system prompt's content must not be empty");
  const texts = input.content.map((block, index) => {
    const { type, text } = (typeof block === "object" && block !== null ? block : {}) as {
      type?: unknown;
      text?: unknown;
    };
    if (type !== "text" || typeof text !== "string") {
      throw invalidParams(
        `systemPrompt.content[${index}]`,
        `system prompt content of type ${JSON.stringify(type ?? null)} is not supported (text only)`,
      );
    }
    return text;
  });
  const text = texts.join("\n\n");
  if (text.trim().length === 0) throw invalidParams("systemPrompt.content", "a system prompt's text must not be blank");
  return { mode: input.mode, text };
}
