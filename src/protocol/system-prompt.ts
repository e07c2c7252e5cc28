// A client's system prompt for a session (ACP `systemPrompt`, its text blocks joined): "append" adds it to the host's
// own instructions, "override" replaces them. Durable in the session's header, replaced only by an explicit new one
// (a `system_prompt` log entry); it crosses the port in WorkerInit and setSystemPrompt.
import * as z from "zod/mini";

export const SystemPromptSetting = z.object({
  mode: z.enum(["append", "override"]),
  text: z.string().check(z.minLength(1)),
});
export type SystemPromptSetting = z.infer<typeof SystemPromptSetting>;

export function sameSystemPrompt(a: SystemPromptSetting | null, b: SystemPromptSetting | null): boolean {
  return a === b || (a !== null && b !== null && a.mode === b.mode && a.text === b.text);
}
