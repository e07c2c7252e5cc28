// Load-repair: reads a session log as the last process left it and says what to cut and what to append so that
// it is whole again. A torn last line is dropped; a turn with no end is closed as interrupted, after an
// "outcome unknown" result for each of its tool calls that has none. Anything else wrong is a LogError: the
// log is refused, never rewritten.
import { LogEntry, LogError, parseHeaderLine, type LogHeader } from "../src/protocol/session-log.js";

export const OUTCOME_UNKNOWN = "outcome unknown: the session stopped while this tool call was running";
export const NOT_RUN = "tool call not run: the session stopped before it started";

export interface RestoredLog {
  header: LogHeader;
  entries: LogEntry[];
  /** Length of the part of the file made of whole, valid lines; the rest is a torn tail to truncate. */
  validLength: number;
  droppedBytes: number;
  /** Entries to append that close what the last process left open. */
  repairs: LogEntry[];
}

export function restoreLog(data: Buffer, sessionId: string): RestoredLog {
  const lines: Array<{ start: number; end: number }> = [];
  for (let start = 0; ; ) {
    const newline = data.indexOf(0x0a, start);
    if (newline < 0) break;
    lines.push({ start, end: newline });
    start = newline + 1;
  }
  const first = lines[0];
  if (!first) throw new LogError(data.length === 0 ? "the file is empty (no header)" : "its header line is torn (no newline)");
  const header = parseHeaderLine(data.toString("utf8", first.start, first.end), sessionId);

  const entries: LogEntry[] = [];
  let validLength = first.end + 1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const entry = parseEntry(data.toString("utf8", line.start, line.end));
    if (!entry) {
      // A last line that is not an entry is the torn end of a write (a crash can leave zeros there too).
      if (i === lines.length - 1) break;
      throw new LogError(`line ${i + 1} is not a valid log entry (the log is damaged before its end)`);
    }
    entries.push(entry);
    validLength = line.end + 1;
  }
  return { header, entries, validLength, droppedBytes: data.length - validLength, repairs: closeOpenTurn(entries) };
}

function parseEntry(text: string): LogEntry | null {
  try {
    const parsed = LogEntry.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Results for the open turn's unanswered tool calls (in call order), then its end. */
function closeOpenTurn(entries: readonly LogEntry[]): LogEntry[] {
  const startIndex = entries.findLastIndex((entry) => entry.type === "turn_start");
  if (startIndex < 0) return [];
  const turnEntries = entries.slice(startIndex);
  const turnId = (entries[startIndex] as Extract<LogEntry, { type: "turn_start" }>).turnId;
  if (turnEntries.some((entry) => entry.type === "turn_end" && entry.turnId === turnId)) return [];

  const answered = new Set<string>();
  const started = new Map<string, Extract<LogEntry, { type: "tool_call" }>>();
  for (const entry of turnEntries) {
    if (entry.type === "tool_result") answered.add(entry.callId);
    if (entry.type === "tool_call") started.set(entry.callId, entry);
  }
  const repairs: LogEntry[] = [];
  for (const entry of turnEntries) {
    if (entry.type !== "assistant_message") continue;
    for (const call of entry.toolCalls) {
      if (answered.has(call.id)) continue;
      answered.add(call.id);
      const toolCall = started.get(call.id);
      repairs.push({
        type: "tool_result",
        turnId,
        // A call that never started was never shown: it gets an id of its own so the model sees an answer.
        toolCallId: toolCall?.toolCallId ?? crypto.randomUUID(),
        callId: call.id,
        name: call.name,
        result: toolCall ? OUTCOME_UNKNOWN : NOT_RUN,
        isError: true,
      });
    }
  }
  repairs.push({ type: "turn_end", turnId, stopReason: "interrupted" });
  return repairs;
}
