// The bash tool as the benchmark uses it: a scripted prompt that makes one bash call, and a probe for the tool.
import type { HostClient, PromptOptions, PromptResult } from "../../src/client/index.js";

export function bashScript(command: string): string {
  return `/script ${JSON.stringify([{ tool: "bash", input: { command } }])}`;
}

/** Runs `true` through the bash tool; resolves to null when it worked, or to why it is not available. */
export async function probeBash(client: HostClient, sessionId: string): Promise<string | null> {
  let result: PromptResult;
  try {
    result = await client.prompt(sessionId, bashScript("true"));
  } catch (error) {
    return `bash tool not available: ${(error as Error).message}`;
  }
  const call = result.toolCalls[0];
  if (!call) return "bash tool not available: the prompt made no tool call";
  if (call.status === "completed") return null;
  const why = `${call.output} ${JSON.stringify(call.rawOutput ?? "")}`;
  if (why.includes('unknown tool "bash"')) return "bash tool not available";
  return `bash tool not available: the call ${call.status}: ${why.slice(0, 200)}`;
}

/** One bash call timed as the client sees it: from its tool_call update to its completed/failed update. */
export async function timedBashCall(
  client: HostClient,
  sessionId: string,
  command: string,
  onUpdate?: PromptOptions["onUpdate"],
): Promise<{ toolMs: number; promptMs: number; status: string; bytes: number; output: string }> {
  let callAt = Number.NaN;
  let endAt = Number.NaN;
  let bytes = 0;
  const sent = performance.now();
  const result = await client.prompt(sessionId, bashScript(command), {
    onUpdate: (update) => {
      if (update.sessionUpdate === "tool_call") callAt = performance.now();
      if (update.sessionUpdate === "tool_call_update") {
        for (const item of update.content ?? [])
          if (item.type === "content" && item.content.type === "text") bytes += item.content.text.length;
        if (update.status === "completed" || update.status === "failed") endAt = performance.now();
      }
      onUpdate?.(update);
    },
  });
  const call = result.toolCalls[0];
  return {
    toolMs: endAt - callAt,
    promptMs: performance.now() - sent,
    status: call?.status ?? "none",
    bytes,
    output: call?.output ?? result.text,
  };
}
