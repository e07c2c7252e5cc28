// Test support for tool flows: scripted prompts, tool results, and the processes a host's commands left behind.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import type { PromptResult, ToolCallSummary } from "../../src/client/index.js";
import { descendants, isAlive } from "./proc.js";

/** Any event id an update carries in `_meta.eventId` (src/protocol/event-id.ts). */
export const anyEventId = expect.stringMatching(/^\d+\.\d+(\.\d+)?$/);

/** A scripted-model prompt from its steps. */
export function script(...steps: unknown[]): string {
  return `/script ${JSON.stringify(steps)}`;
}

export const bash = (command: string, extra: Record<string, unknown> = {}) => ({
  tool: "bash",
  input: { command, ...extra },
});
export const tool = (name: string, input: Record<string, unknown>) => ({ tool: name, input });

/** A script that reads the file at path and says what it read `times` times: a large answer from a small prompt. */
export function fileSaidTimes(path: string, times: number): string {
  return script(tool("read_file", { path }), ...Array.from({ length: times }, () => ({ say: "{{result}}" })));
}

/** The final result the model saw for a tool call. */
export function resultOf(call: ToolCallSummary | undefined): string {
  const raw = call?.rawOutput as { output?: unknown } | undefined;
  if (typeof raw?.output !== "string") throw new Error(`tool call has no result: ${JSON.stringify(call)}`);
  return raw.output;
}

export function results(result: PromptResult): string[] {
  return result.toolCalls.map(resultOf);
}

/** The output deltas of one tool call, one entry per tool_call_update that carried output (not the final result). */
export function deltasOf(result: PromptResult, toolCallId: string): string[] {
  const deltas: string[] = [];
  for (const update of result.updates) {
    if (
      update.sessionUpdate !== "tool_call_update" ||
      update.toolCallId !== toolCallId ||
      update.rawOutput !== undefined
    )
      continue;
    for (const item of update.content ?? [])
      if (item.type === "content" && item.content.type === "text") deltas.push(item.content.text);
  }
  return deltas;
}

export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "";
  }
}

/** The host's spawner process (a bwrap's command line names the spawner's directory too, so match its script). */
export function spawnerOf(hostPid: number): number[] {
  return descendants(hostPid).filter((pid) => cmdline(pid).includes("spawner/main.js"));
}

/** Live descendants of root whose command line is exactly `command`. */
export function processesRunning(root: number, command: string): number[] {
  return descendants(root).filter((pid) => isAlive(pid) && cmdline(pid) === command);
}

/** The first pid of processesRunning, once there is one. */
export function firstProcess(root: number, command: string): Promise<number> {
  return waitFor(command, () => processesRunning(root, command)[0]);
}

/** Polls until check() returns a truthy value; fails with `what` after timeoutMs (a bound on waiting, not a speed test). */
export async function waitFor<T>(
  what: string,
  check: () => T | Promise<T>,
  timeoutMs = 15_000,
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until every pid is gone (dead or a zombie). */
export function waitGone(pids: number[], what = `pids ${pids.join(",")} to end`): Promise<boolean> {
  return waitFor(what, () => pids.every((pid) => !isAlive(pid)));
}

export function taskIdIn(text: string): string {
  const match = /bg-[0-9a-f]+(?:-[0-9a-f]+)?/.exec(text);
  if (!match) throw new Error(`no task id in: ${text}`);
  return match[0];
}
