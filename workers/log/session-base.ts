// What a session is at some point of its log, folded from the entries before it: the conversation its model sees,
// the tools allowed always, its token sums, mode and model, turns and title. A restore starts from the base a
// compaction stored (or the header's) and folds only the entries after it.
import type { ModelConfig, SessionModeId } from "../../src/protocol/port.js";
import { titleFrom } from "../../src/protocol/session-log.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import { alwaysAllowedFrom, historyFrom, settingsFrom } from "./history.js";
import type { JournalEntry } from "./journal.js";
import type { ChatMessage } from "../models/model.js";
import type { TokenCounts } from "./usage-totals.js";

export interface SessionBase {
  history: ChatMessage[];
  alwaysAllowed: string[];
  usage: TokenCounts;
  mode: SessionModeId;
  model: ModelConfig;
  turns: number;
  title: string | null;
  /** Last, after the fields src/protocol/snapshot-settings.ts reads past the history (absent in older snapshots). */
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
export function advanceBase(base: SessionBase, entries: readonly JournalEntry[]): SessionBase {
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
  // The key order is the snapshot line's (src/protocol/snapshot-settings.ts reads it).
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
