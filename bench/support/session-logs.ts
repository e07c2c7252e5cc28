// Session logs written straight to a state dir, as a scripted session writes them: most turns an echo, every
// fourth a bash call with its output. For the restore and list scenarios: thousands of turns, or of sessions,
// without running them.
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { LOG_FORMAT, LOG_FORMAT_VERSION, type LogEntry, type LogHeader } from "../../src/protocol/log/session-log.js";

export function logHeader(sessionId: string, cwd: string, createdAt: string): LogHeader {
  return {
    format: LOG_FORMAT,
    formatVersion: LOG_FORMAT_VERSION,
    sessionId,
    cwd,
    createdAt,
    mode: "auto",
    model: { provider: "scripted", model: "scripted", retries: 0 },
    hostVersion: "bench",
  };
}

function turn(n: number, at: string): LogEntry[] {
  const turnId = randomUUID();
  if (n % 4 !== 3) {
    const text = `prompt number ${n}: what does this part of the build do?`;
    return [
      { type: "turn_start", turnId, at },
      { type: "user_message", turnId, text },
      { type: "assistant_message", turnId, blocks: [`You said: ${text}`], toolCalls: [] },
      { type: "turn_end", turnId, stopReason: "end_turn" },
    ];
  }
  const callId = `call_${n}`;
  const toolCallId = randomUUID();
  const input = { command: `make -C src/part${n % 17} all` };
  return [
    { type: "turn_start", turnId, at },
    { type: "user_message", turnId, text: `build part ${n % 17}` },
    {
      type: "assistant_message",
      turnId,
      blocks: ["running the build"],
      toolCalls: [{ id: callId, name: "bash", input }],
    },
    { type: "tool_call", turnId, toolCallId, callId, name: "bash", title: input.command, kind: "execute", input },
    {
      type: "tool_result",
      turnId,
      toolCallId,
      callId,
      name: "bash",
      result: `cc -O2 -c a.c\ncc -O2 -c b.c\nld -o part${n % 17} a.o b.o\n[exit 0]`,
      isError: false,
    },
    { type: "assistant_message", turnId, blocks: [`part ${n % 17} built`], toolCalls: [] },
    { type: "turn_end", turnId, stopReason: "end_turn" },
  ];
}

export interface LongSessionShape {
  /**
   * As a session on a real model: each turn ends with the response's usage, and every this many turns the context
   * was summarised (a compaction entry keeping the last turn's messages), so the conversation a restore folds stays
   * short however long the log grows.
   */
  summarisedEvery?: number;
}

/** The entries of `turns` finished turns. */
export function sessionLogEntries(
  turns: number,
  at = new Date().toISOString(),
  shape: LongSessionShape = {},
): LogEntry[] {
  const entries: LogEntry[] = [];
  const every = shape.summarisedEvery;
  for (let n = 0; n < turns; n++) {
    const made = turn(n, at);
    if (every === undefined) {
      entries.push(...made);
      continue;
    }
    const end = made.pop() as Extract<LogEntry, { type: "turn_end" }>;
    const turnId = end.turnId;
    made.push({ type: "usage", turnId, tokens: { prompt: 1200 + 40 * (n % every), completion: 60, cached: 1100 } });
    if (n % every === every - 1)
      made.push({
        type: "compaction",
        turnId,
        kept: 2,
        summary: `Turns ${n + 1 - every} to ${n}: the user asked what parts of the build do and had parts built; each build passed.`,
        turns: every,
        tokensBefore: 1200 + 40 * every,
        tokensAfter: 300,
        level: "normal",
        replacedTokens: 40 * every,
      });
    entries.push(...made, end);
  }
  return entries;
}

/** Writes a log of `turns` finished turns; returns its size in bytes. */
export function writeSessionLog(
  path: string,
  sessionId: string,
  cwd: string,
  turns: number,
  shape: LongSessionShape = {},
): number {
  const at = new Date().toISOString();
  const lines = [
    JSON.stringify(logHeader(sessionId, cwd, at)),
    ...sessionLogEntries(turns, at, shape).map((entry) => JSON.stringify(entry)),
  ];
  const text = `${lines.join("\n")}\n`;
  writeFileSync(path, text);
  return Buffer.byteLength(text);
}
