// What a session is at some point of its log, folded from the entries before it: the conversation its model sees,
// the tools allowed always, its token sums, mode and model, turns and title. A restore starts from the base a
// compaction stored (or the header's) and folds only the entries after it.
import type { ModelConfig, SessionModeId } from "../port.js";
import { titleFrom, type LogEntry } from "../session-log.js";
import type { SystemPromptSetting } from "../system-prompt.js";
import type { ChatMessage } from "./chat-message.js";

export interface TokenCounts {
  prompt: number;
  completion: number;
  cached: number;
}

export interface SessionBase {
  history: ChatMessage[];
  alwaysAllowed: string[];
  usage: TokenCounts;
  mode: SessionModeId;
  model: ModelConfig;
  turns: number;
  title: string | null;
  /** Last, after the fields snapshot.ts's settings reader reads past the history (absent in older snapshots). */
  systemPrompt: SystemPromptSetting | null;
}

export function emptyBase(header: { mode: SessionModeId; model: ModelConfig; systemPrompt?: SystemPromptSetting | undefined }): SessionBase {
  return {
    history: [],
    alwaysAllowed: [],
    usage: { prompt: 0, completion: 0, cached: 0 },
    mode: header.mode,
    model: header.model,
    turns: 0,
    title: null,
    systemPrompt: header.systemPrompt ?? null,
  };
}

/** The base after `entries`. */
export function advanceBase(base: SessionBase, entries: readonly LogEntry[]): SessionBase {
  const usage = { ...base.usage };
  let turns = base.turns;
  let title = base.title;
  for (const entry of entries) {
    if (entry.type === "usage") {
      usage.prompt += entry.tokens.prompt;
      usage.completion += entry.tokens.completion;
      usage.cached += entry.tokens.cached;
    } else if (entry.type === "turn_end") turns++;
    else if (entry.type === "user_message" && title === null) title = titleFrom(entry.text);
  }
  const { mode, model, systemPrompt } = settingsFrom(base, entries);
  // The key order is the snapshot line's (snapshot.ts's settings reader reads it).
  return {
    history: historyFrom(entries, base.history),
    alwaysAllowed: alwaysAllowedFrom(entries, base.alwaysAllowed),
    usage,
    mode,
    model,
    turns,
    title,
    systemPrompt,
  };
}

/** base: the history before the first entry (a compacted log's snapshot). */
export function historyFrom(entries: readonly LogEntry[], base: readonly ChatMessage[] = []): ChatMessage[] {
  let history: ChatMessage[] = [...base];
  for (const entry of entries) {
    if (entry.type === "user_message") history.push({ role: "user", text: entry.text });
    else if (entry.type === "assistant_message")
      history.push({ role: "assistant", blocks: entry.blocks, toolCalls: entry.toolCalls, ...(entry.thought ? { thought: entry.thought } : {}) });
    else if (entry.type === "tool_result")
      history.push({ role: "tool", toolCallId: entry.callId, name: entry.name, result: entry.result, isError: entry.isError });
    else if (entry.type === "compaction") history = [{ role: "summary", text: entry.summary }, ...history.slice(history.length - entry.kept)];
  }
  return history;
}

export interface SessionSettingsAt {
  mode: SessionModeId;
  model: ModelConfig;
  systemPrompt: SystemPromptSetting | null;
}

/** The mode, model and system prompt a session runs with at the end of its log: its base's, then each change after it. */
export function settingsFrom(base: SessionSettingsAt, entries: readonly LogEntry[]): SessionSettingsAt {
  let { mode, model, systemPrompt } = base;
  for (const entry of entries) {
    if (entry.type === "mode") mode = entry.mode;
    else if (entry.type === "model") model = entry.model;
    else if (entry.type === "system_prompt") systemPrompt = entry.systemPrompt;
  }
  return { mode, model, systemPrompt };
}

/** Tools the user allowed always in this session: the grant outlives the worker it was given to. */
export function alwaysAllowedFrom(entries: readonly LogEntry[], base: readonly string[] = []): string[] {
  const names = new Map<string, string>();
  const allowed = new Set<string>(base);
  for (const entry of entries) {
    if (entry.type === "tool_call") names.set(entry.toolCallId, entry.name);
    else if (entry.type === "permission" && entry.outcome === "allow_always") {
      const name = names.get(entry.toolCallId);
      if (name) allowed.add(name);
    }
  }
  return [...allowed];
}
