// The second line of a compacted log: the session's state (what a restore needs, without reading the history) and
// the size of the replayable history that follows it. A compacted log is
//   header (formatVersion 2) \n snapshot \n replay entries (replayLines lines, replayBytes bytes) \n… then the
//   entries appended since, which a restore folds onto the snapshot's state.
// One JSON object, its keys in SNAPSHOT_KEYS' order, read two ways: whole by the worker's restore (parseSnapshotLine),
// and its settings only by the main thread to fork a session (snapshotSettings: a conversation can take megabytes).
import * as z from "zod/mini";
import { ModelConfig, SessionModeId } from "../port.js";
import { LogError, type LogEntry } from "./session-log.js";
import { SystemPromptSetting } from "../system-prompt.js";
import { Budget } from "../budget.js";
import type { ChatMessage } from "./chat-message.js";
import type { SessionState } from "./session-state.js";

/**
 * The keys in the order they are written. The settings reader splits the line at the history: the settings lie before
 * it and after the key that follows it, which only the object's own structure can spell there (inside a JSON string
 * every quote is escaped). systemPrompt and budget are last: snapshots written before they were kept lack them (the
 * settings reader leaves budget out: a fork is a tree of its own).
 */
const SNAPSHOT_KEYS = [
  "type",
  "replayLines",
  "replayBytes",
  "history",
  "alwaysAllowed",
  "usage",
  "mode",
  "model",
  "turns",
  "title",
  "systemPrompt",
  "budget",
] as const;
type SnapshotKey = (typeof SNAPSHOT_KEYS)[number];

export interface Snapshot {
  base: SessionState;
  replayLines: number;
  replayBytes: number;
}

/** The entries session/load shows (workers/log/replay.ts): a compaction keeps these and drops the rest. */
export function isReplayed(entry: LogEntry): boolean {
  const type = entry.type;
  return (
    type === "user_message" ||
    type === "assistant_message" ||
    type === "tool_call" ||
    type === "tool_result" ||
    type === "compaction" ||
    type === "plan"
  );
}

export function snapshotLine(snapshot: Snapshot): string {
  const { base, replayLines, replayBytes } = snapshot;
  const { history, alwaysAllowed, usage, mode, model, turns, title, systemPrompt, budget } = base;
  const fields: Record<SnapshotKey, unknown> = {
    type: "snapshot",
    replayLines,
    replayBytes,
    history,
    alwaysAllowed,
    usage,
    mode,
    model,
    turns,
    title,
    systemPrompt,
    budget,
  };
  return JSON.stringify(Object.fromEntries(SNAPSHOT_KEYS.map((key) => [key, fields[key]])));
}

/**
 * Checked by hand, field by field: a restore parses it on every open, and a schema for the whole conversation would
 * cost more than the parse.
 */
export function parseSnapshotLine(text: string): Snapshot {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LogError("its snapshot line (line 2) is not JSON");
  }
  const fail = (what: string): never => {
    throw new LogError(`its snapshot line (line 2) is corrupt: ${what}`);
  };
  if (!isRecord(json) || json.type !== "snapshot") return fail('no "type": "snapshot"');
  const { replayLines, replayBytes, history, alwaysAllowed, usage, turns, title, systemPrompt } = json;
  if (!isCount(replayLines) || !isCount(replayBytes)) fail("replayLines and replayBytes must be counts");
  if (!isCount(turns)) fail("turns must be a count");
  if (title !== null && typeof title !== "string") fail("title must be a string or null");
  if (!Array.isArray(alwaysAllowed) || !alwaysAllowed.every((name) => typeof name === "string"))
    fail("alwaysAllowed must be names");
  if (!isRecord(usage) || !isCount(usage.prompt) || !isCount(usage.completion) || !isCount(usage.cached))
    return fail("usage must be token counts");
  if (!Array.isArray(history)) return fail("history must be an array");
  for (let i = 0; i < history.length; i++) if (!isMessage(history[i])) fail(`history[${i}] is not a message`);
  const mode = SessionModeId.safeParse(json.mode);
  const model = ModelConfig.safeParse(json.model);
  if (!mode.success) fail("mode is not a session mode");
  if (!model.success) fail("model is not a model configuration");
  // Absent in snapshots written before system prompts were kept.
  const prompt =
    systemPrompt === undefined || systemPrompt === null ? null : SystemPromptSetting.safeParse(systemPrompt);
  if (prompt && !prompt.success) fail("systemPrompt is not a system prompt");
  // Absent in snapshots written before budgets were kept.
  const budget = json.budget === undefined || json.budget === null ? null : Budget.safeParse(json.budget);
  if (budget && !budget.success) fail("budget is not a budget");
  return {
    replayLines: replayLines as number,
    replayBytes: replayBytes as number,
    base: {
      history: history as ChatMessage[],
      alwaysAllowed: alwaysAllowed as string[],
      usage: { prompt: usage.prompt as number, completion: usage.completion as number, cached: usage.cached as number },
      mode: mode.data!,
      model: model.data!,
      turns: turns as number,
      title: title as string | null,
      systemPrompt: prompt?.data ?? null,
      budget: budget?.data ?? null,
      openCalls: new Map(),
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

const isString = (value: unknown): boolean => typeof value === "string";

function isMessage(value: unknown): boolean {
  if (!isRecord(value)) return false;
  switch (value.role) {
    case "user":
    case "summary":
      return isString(value.text);
    case "assistant":
      return (
        Array.isArray(value.blocks) &&
        value.blocks.every(isString) &&
        Array.isArray(value.toolCalls) &&
        value.toolCalls.every((call) => isRecord(call) && isString(call.id) && isString(call.name)) &&
        (value.thought === undefined || isString(value.thought))
      );
    case "tool":
      return (
        isString(value.toolCallId) &&
        isString(value.name) &&
        isString(value.result) &&
        typeof value.isError === "boolean"
      );
    default:
      return false;
  }
}

// The settings reader (src/store/dir/fork-log.ts, src/store/postgres/): a line it cannot split is parsed whole. Its
// schemas are built on first use: a session worker, which holds this module too, never reads settings this way.
const Head = z.lazy(() =>
  z.object({ replayLines: z.int().check(z.nonnegative()), replayBytes: z.int().check(z.nonnegative()) }),
);
const Tail = z.lazy(() =>
  z.object({
    mode: SessionModeId,
    model: ModelConfig,
    turns: z.int().check(z.nonnegative()),
    title: z.nullable(z.string()),
    systemPrompt: z.optional(z.nullable(SystemPromptSetting)),
  }),
);

export interface SnapshotSettings {
  replayLines: number;
  replayBytes: number;
  mode: SessionModeId;
  model: ModelConfig;
  turns: number;
  title: string | null;
  systemPrompt: SystemPromptSetting | null;
}

const HISTORY_AT = SNAPSHOT_KEYS.indexOf("history");
const HISTORY = `,"${SNAPSHOT_KEYS[HISTORY_AT]}":[`;
const AFTER_HISTORY = `],"${SNAPSHOT_KEYS[HISTORY_AT + 1]}":[`;

/**
 * The settings from the end of a snapshot line (all of it, or its last part: the host's store may hand over only that);
 * null when the part does not reach back to the end of the history.
 */
export function snapshotTailSettings(end: string): Omit<SnapshotSettings, "replayLines" | "replayBytes"> | null {
  const afterAt = end.lastIndexOf(AFTER_HISTORY);
  if (afterAt < 0) return null;
  let tail: unknown;
  try {
    tail = JSON.parse(`{${end.slice(afterAt + 2)}`);
  } catch {
    throw new LogError("its snapshot is not JSON");
  }
  const parsed = Tail.safeParse(tail);
  if (!parsed.success) throw new LogError("its snapshot is corrupt: its settings do not parse");
  return { ...parsed.data, systemPrompt: parsed.data.systemPrompt ?? null };
}

export function snapshotSettings(line: string): SnapshotSettings {
  const historyAt = line.indexOf(HISTORY);
  const afterAt = line.lastIndexOf(AFTER_HISTORY);
  let head: unknown;
  let tail: unknown;
  try {
    if (historyAt > 0 && afterAt > historyAt) {
      head = JSON.parse(`${line.slice(0, historyAt)}}`);
      tail = JSON.parse(`{${line.slice(afterAt + 2)}`);
    } else {
      head = tail = JSON.parse(line);
    }
  } catch {
    throw new LogError("its snapshot line (line 2) is not JSON");
  }
  const parsedHead = Head.safeParse(head);
  const parsedTail = Tail.safeParse(tail);
  if (!parsedHead.success || !parsedTail.success)
    throw new LogError("its snapshot line (line 2) is corrupt: its settings do not parse");
  return { ...parsedHead.data, ...parsedTail.data, systemPrompt: parsedTail.data.systemPrompt ?? null };
}
