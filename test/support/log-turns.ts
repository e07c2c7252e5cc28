// Hand-made turns of a session log: a plain answer, a tool call with its permission and result, usage and a mode
// change, so what a compaction folds into its snapshot is all there.
import type { LogEntry } from "../../src/protocol/log/session-log.js";

const at = "2026-01-02T03:04:05.000Z";

export function logTurn(n: number): LogEntry[] {
  // Shaped like the host's own turn ids (UUIDs): every entry of a turn carries it, its snapshot does not.
  const turnId = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  if (n % 3 !== 1) {
    return [
      { type: "turn_start", turnId, at },
      { type: "user_message", turnId, text: `question ${n}` },
      {
        type: "assistant_message",
        turnId,
        blocks: [`answer ${n}`],
        toolCalls: [],
        ...(n % 5 === 0 ? { thought: `thinking ${n}` } : {}),
      },
      { type: "usage", turnId, tokens: { prompt: 100 + n, completion: 10, cached: n % 2 } },
      { type: "turn_end", turnId, stopReason: "end_turn" },
    ];
  }
  const callId = `call_${n}`;
  const toolCallId = `tc-${n}`;
  return [
    { type: "turn_start", turnId, at },
    { type: "user_message", turnId, text: `run step ${n}` },
    {
      type: "assistant_message",
      turnId,
      blocks: ["running it"],
      toolCalls: [{ id: callId, name: n % 2 ? "bash" : "write_file", input: { command: `make ${n}` } }],
    },
    {
      type: "tool_call",
      turnId,
      toolCallId,
      callId,
      name: n % 2 ? "bash" : "write_file",
      title: `make ${n}`,
      kind: "execute",
      input: { command: `make ${n}` },
    },
    { type: "permission", turnId, toolCallId, outcome: "allow_always" },
    {
      type: "tool_result",
      turnId,
      toolCallId,
      callId,
      name: n % 2 ? "bash" : "write_file",
      result: `built ${n}`,
      isError: false,
    },
    { type: "assistant_message", turnId, blocks: [`step ${n} done`], toolCalls: [] },
    ...(n % 4 === 0 ? [{ type: "mode" as const, mode: "auto" as const }] : []),
    { type: "turn_end", turnId, stopReason: "end_turn" },
  ];
}

/** Turns first…last, their entries in order. */
export function logTurns(first: number, last: number): LogEntry[] {
  const entries: LogEntry[] = [];
  for (let n = first; n <= last; n++) entries.push(...logTurn(n));
  return entries;
}
