// What a session's log says of it, folded entry by entry: the conversation its model sees, the tools allowed always,
// its token sums, mode, model and system prompt, turns and title. Every reader of a log folds it here: the worker's
// journals and its restore, a compaction's snapshot, and the main thread's fork point. A restore starts from the state
// a compaction stored (or the header's) and folds only the entries after it.
import type { Budget } from "../budget.js";
import type { ModelConfig, SessionModeId } from "../port.js";
import { titleFrom, type LogEntry } from "./session-log.js";
import type { SystemPromptSetting } from "../system-prompt.js";
import type { ChatMessage } from "./chat-message.js";

export interface TokenCounts {
  prompt: number;
  completion: number;
  cached: number;
}

/** The part of the state session/list and a fork read, cheap to fold on every entry a journal appends. */
export interface SessionSummary {
  mode: SessionModeId;
  model: ModelConfig;
  systemPrompt: SystemPromptSetting | null;
  /** Turns ended. */
  turns: number;
  /** The title session/list shows when none was set: the first line of the first prompt (null before one). */
  title: string | null;
}

export interface SessionState extends SessionSummary {
  history: ChatMessage[];
  alwaysAllowed: string[];
  usage: TokenCounts;
  /** Its session tree's budget: the header's, then the last budget entry's; null: none. */
  budget: Budget | null;
  /**
   * The tool names of the turn in flight's calls, by toolCallId: a permission names only its call. Empty between
   * turns, where snapshots are written, so a snapshot does not hold it.
   */
  openCalls: ReadonlyMap<string, string>;
}

export function emptyState(header: {
  mode: SessionModeId;
  model: ModelConfig;
  systemPrompt?: SystemPromptSetting | undefined;
  budget?: Budget | undefined;
}): SessionState {
  return {
    history: [],
    alwaysAllowed: [],
    usage: { prompt: 0, completion: 0, cached: 0 },
    mode: header.mode,
    model: header.model,
    turns: 0,
    title: null,
    systemPrompt: header.systemPrompt ?? null,
    budget: header.budget ?? null,
    openCalls: new Map(),
  };
}

/**
 * Which entries change a summary, as data for the readers that find them without parsing every entry (the fork
 * point, in a log file's buffer and in SQL): each entry of the counted type ends a turn; of each lastWins type the
 * last entry sets its setting; the first entry of firstWhileUntitled gives the title when there is none yet. No other
 * entry changes it; stepSummary says how these do.
 */
export const SUMMARY_RULE = {
  counted: "turn_end",
  lastWins: ["mode", "model", "system_prompt"],
  firstWhileUntitled: "user_message",
} as const satisfies {
  counted: LogEntry["type"];
  lastWins: ReadonlyArray<LogEntry["type"]>;
  firstWhileUntitled: LogEntry["type"];
};

/** Whether an entry of this type changes a summary titled so (SUMMARY_RULE). */
export function changesSummary(title: string | null, type: string): boolean {
  return (
    type === SUMMARY_RULE.counted ||
    (SUMMARY_RULE.lastWins as readonly string[]).includes(type) ||
    (type === SUMMARY_RULE.firstWhileUntitled && title === null)
  );
}

/** The summary after `entry`: the same object when the entry does not change it. */
export function foldSummary(summary: SessionSummary, entry: LogEntry): SessionSummary {
  if (!changesSummary(summary.title, entry.type)) return summary;
  const { mode, model, systemPrompt, turns, title } = summary;
  const next = { mode, model, systemPrompt, turns, title };
  stepSummary(next, entry);
  return next;
}

/** The state after `entries`, `state` left as it was: copied once, however many entries there are. */
export function foldLog(state: SessionState, entries: readonly LogEntry[]): SessionState {
  const next: Draft = {
    ...state,
    history: [...state.history],
    alwaysAllowed: [...state.alwaysAllowed],
    usage: { ...state.usage },
    openCalls: new Map(state.openCalls),
  };
  for (const entry of entries) {
    stepSummary(next, entry);
    stepConversation(next, entry);
  }
  return next;
}

type Draft = SessionState & { openCalls: Map<string, string> };

function stepSummary(summary: SessionSummary, entry: LogEntry): void {
  switch (entry.type) {
    case "turn_end":
      summary.turns++;
      break;
    case "user_message":
      summary.title ??= titleFrom(entry.text);
      break;
    case "mode":
      summary.mode = entry.mode;
      break;
    case "model":
      summary.model = entry.model;
      break;
    case "system_prompt":
      summary.systemPrompt = entry.systemPrompt;
      break;
    default:
      break;
  }
}

function stepConversation(state: Draft, entry: LogEntry): void {
  switch (entry.type) {
    case "budget":
      state.budget = entry.budget;
      break;
    case "user_message":
      state.history.push({ role: "user", text: entry.text });
      break;
    case "assistant_message": {
      // Not a conditional spread: a restore folds thousands of these, mostly in cold code, where a spread costs
      // microseconds each.
      const message: ChatMessage = { role: "assistant", blocks: entry.blocks, toolCalls: entry.toolCalls };
      if (entry.thought) message.thought = entry.thought;
      state.history.push(message);
      break;
    }
    case "tool_result":
      state.history.push({
        role: "tool",
        toolCallId: entry.callId,
        name: entry.name,
        result: entry.result,
        isError: entry.isError,
      });
      break;
    case "compaction":
      state.history = [
        { role: "summary", text: entry.summary },
        ...state.history.slice(state.history.length - entry.kept),
      ];
      break;
    case "usage":
      state.usage.prompt += entry.tokens.prompt;
      state.usage.completion += entry.tokens.completion;
      state.usage.cached += entry.tokens.cached;
      break;
    case "tool_call":
      state.openCalls.set(entry.toolCallId, entry.name);
      break;
    case "permission": {
      // The grant outlives the worker it was given to.
      const name = entry.outcome === "allow_always" ? state.openCalls.get(entry.toolCallId) : undefined;
      if (name && !state.alwaysAllowed.includes(name)) state.alwaysAllowed.push(name);
      break;
    }
    case "turn_end":
      state.openCalls.clear();
      break;
    default:
      break;
  }
}
