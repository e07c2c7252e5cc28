// Where a fork's history ends, the same for every store: after the source's last ended turn (a turn in flight, a
// turn_start with no turn_end after it, is left out), with what the session was there: its mode, model and system
// prompt, its turns and the title its first prompt gives. Read from the entries after the source's base (a compacted
// log's snapshot, or its header): each entry by its type, and parsed (then folded, log/session-state.ts) only where it
// changes one of those.
import { changesSummary, foldSummary, SUMMARY_RULE, type SessionSummary } from "../protocol/log/session-state.js";
import { LogEntry, LogError } from "../protocol/log/session-log.js";

/** The source as it stands at the fork point: the fork's own settings. */
export type ForkPointState = SessionSummary;

/** One entry after the base: its type (null: not an entry), and the entry itself when asked for. */
export interface ForkLine {
  type: string | null;
  entry(): Record<string, unknown>;
}

/**
 * The state at the fork point and how many of `lines` lie before it. torn: the last line may be the torn end of a
 * write still going on (a log file being appended to); it is left out. Any other line that is not an entry is damage
 * the fork would carry: LogError.
 */
export function forkPoint(
  lines: Iterable<ForkLine>,
  base: ForkPointState,
  torn: "last line may be torn" | "whole",
): { state: ForkPointState; count: number } {
  let current = base;
  let state = base;
  let count = 0;
  let seen = 0;
  let open = false;
  let damaged = false;
  for (const line of lines) {
    if (damaged)
      throw new LogError(
        "an entry after its replayable history is not a valid log entry (the log is damaged before its end)",
      );
    seen++;
    const type = line.type;
    if (type === null) {
      // Only the last line may be torn: one more line after it makes it damage.
      if (torn === "whole") throw new LogError("an entry after its replayable history is not a valid log entry");
      damaged = true;
      continue;
    }
    if (type === "turn_start") open = true;
    else if (type === "turn_end") open = false;
    // Turn lines are counted by their type, never parsed: a log holds one pair per turn.
    if (type === SUMMARY_RULE.counted) current = { ...current, turns: current.turns + 1 };
    else if (changesSummary(current.title, type)) current = foldSummary(current, entryOf(line, type));
    if (!open) {
      count = seen;
      state = current;
    }
  }
  return { state, count };
}

function entryOf(line: ForkLine, type: string): LogEntry {
  const parsed = LogEntry.safeParse(line.entry());
  if (!parsed.success) throw new LogError(`a ${type} entry after its replayable history is not valid`);
  return parsed.data;
}

const TYPE_PREFIX = '{"type":"';

/** An entry's type from its first characters, as every entry is written ({"type":"…"); a line written otherwise is parsed. */
export function entryTypeOf(head: string, parse: () => unknown): string | null {
  if (head.startsWith(TYPE_PREFIX)) {
    const end = head.indexOf('"', TYPE_PREFIX.length);
    if (end > 0) return head.slice(TYPE_PREFIX.length, end);
  }
  try {
    const parsed = parse();
    const type = typeof parsed === "object" && parsed !== null ? (parsed as { type?: unknown }).type : undefined;
    return typeof type === "string" ? type : null;
  } catch {
    return null;
  }
}
