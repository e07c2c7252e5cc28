// Rebuilds what a session was from its journal: the conversation a model sees, its mode, model and grants.
import type { ModelConfig, SessionModeId } from "../../src/protocol/port.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import type { JournalEntry } from "./journal.js";
import type { ChatMessage } from "../models/model.js";

/** base: the history before the first entry (a compacted log's snapshot). */
export function historyFrom(entries: readonly JournalEntry[], base: readonly ChatMessage[] = []): ChatMessage[] {
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
export function settingsFrom(base: SessionSettingsAt, entries: readonly JournalEntry[]): SessionSettingsAt {
  let { mode, model, systemPrompt } = base;
  for (const entry of entries) {
    if (entry.type === "mode") mode = entry.mode;
    else if (entry.type === "model") model = entry.model;
    else if (entry.type === "system_prompt") systemPrompt = entry.systemPrompt;
  }
  return { mode, model, systemPrompt };
}

/** Tools the user allowed always in this session: the grant outlives the worker it was given to. */
export function alwaysAllowedFrom(entries: readonly JournalEntry[], base: readonly string[] = []): string[] {
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
