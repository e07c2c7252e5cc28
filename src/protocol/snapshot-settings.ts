// What a compacted log's snapshot line says of the session's settings, read without parsing its conversation: the
// main thread reads it to fork a session (src/store/dir/fork-log.ts), and a conversation can take megabytes. The line
// is written by workers/log/log-snapshot.ts as one JSON object whose keys come in this order:
//   type, replayLines, replayBytes, history, alwaysAllowed, usage, mode, model, turns, title, systemPrompt (newer)
// so the small fields lie before `"history":[` and after the history's closing `],"alwaysAllowed":[`, which only the
// object's own structure can spell (inside a JSON string every quote is escaped). test/unit/snapshot-settings.test.ts
// holds this reader to the writer; a line it cannot split is parsed whole.
import * as z from "zod/mini";
import { ModelConfig, SessionModeId } from "./port.js";
import { LogError } from "./session-log.js";
import { SystemPromptSetting } from "./system-prompt.js";

const Head = z.object({ replayLines: z.int().check(z.nonnegative()), replayBytes: z.int().check(z.nonnegative()) });
const Tail = z.object({
  mode: SessionModeId,
  model: ModelConfig,
  turns: z.int().check(z.nonnegative()),
  title: z.nullable(z.string()),
  systemPrompt: z.optional(z.nullable(SystemPromptSetting)),
});

export interface SnapshotSettings {
  replayLines: number;
  replayBytes: number;
  mode: SessionModeId;
  model: ModelConfig;
  turns: number;
  title: string | null;
  systemPrompt: SystemPromptSetting | null;
}

const HISTORY = ',"history":[';
const AFTER_HISTORY = '],"alwaysAllowed":[';

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
  if (!parsedHead.success || !parsedTail.success) throw new LogError("its snapshot line (line 2) is corrupt: its settings do not parse");
  return { ...parsedHead.data, ...parsedTail.data, systemPrompt: parsedTail.data.systemPrompt ?? null };
}
