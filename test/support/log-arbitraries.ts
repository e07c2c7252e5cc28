// Test support: generated session logs (fast-check) for the properties of the log's fold and of the readers that
// must agree with it.
import fc from "fast-check";
import { foldSummary, type SessionSummary } from "../../src/protocol/log/session-state.js";
import type { LogEntry } from "../../src/protocol/log/session-log.js";

const at = "2026-01-02T03:04:05.000Z";

export const text = fc.oneof(
  fc.string(),
  fc.constantFrom("", "\n\n  second line", 'a "quoted" ],"alwaysAllowed":[ prompt', "x".repeat(100)),
);
const tool = fc.constantFrom("bash", "write_file", "read_file");

/** One step of a turn: what the model said and did, as the agent loop journals it. */
const step = (turnId: string, n: number): fc.Arbitrary<LogEntry[]> =>
  fc.oneof(
    fc
      .record({ blocks: fc.array(text, { maxLength: 2 }), thought: fc.option(text, { nil: undefined }) })
      .map(({ blocks, thought }): LogEntry[] => [
        { type: "assistant_message", turnId, blocks, toolCalls: [], ...(thought === undefined ? {} : { thought }) },
      ]),
    fc
      .record({
        name: tool,
        outcome: fc.constantFrom("allow_always", "allow_once", "reject", "cancelled"),
        isError: fc.boolean(),
        result: text,
      })
      .map(({ name, outcome, isError, result }): LogEntry[] => {
        const callId = `call-${turnId}-${n}`;
        const toolCallId = `tc-${turnId}-${n}`;
        return [
          { type: "assistant_message", turnId, blocks: [], toolCalls: [{ id: callId, name, input: { n } }] },
          { type: "tool_call", turnId, toolCallId, callId, name, title: name, kind: "execute", input: { n } },
          { type: "permission", turnId, toolCallId, outcome },
          { type: "tool_result", turnId, toolCallId, callId, name, result, isError },
        ];
      }),
    fc
      .record({ prompt: fc.nat(500), completion: fc.nat(500), cached: fc.nat(500) })
      .map((tokens): LogEntry[] => [{ type: "usage", turnId, tokens }]),
    fc
      .record({ kept: fc.nat(6), summary: text })
      .map(({ kept, summary }): LogEntry[] => [
        { type: "compaction", turnId, kept, summary, turns: 1, tokensBefore: 100, tokensAfter: 50 },
      ]),
    fc.constant<LogEntry[]>([{ type: "plan", turnId, entries: [] }]),
  );

export const turn = (n: number): fc.Arbitrary<LogEntry[]> => {
  const turnId = `turn-${n}`;
  return fc
    .tuple(
      text,
      fc.array(fc.nat(), { maxLength: 4 }).chain((steps) => fc.tuple(...steps.map((_, i) => step(turnId, i)))),
      fc.constantFrom("end_turn", "cancelled", "interrupted"),
    )
    .map(([prompt, steps, stopReason]): LogEntry[] => [
      { type: "turn_start", turnId, at },
      { type: "user_message", turnId, text: prompt },
      ...steps.flat(),
      { type: "turn_end", turnId, stopReason },
    ]);
};

/** A change of the session's settings between turns. */
export const setting: fc.Arbitrary<LogEntry> = fc.oneof(
  fc.constantFrom("ask", "auto", "read-only", "full-access").map((mode): LogEntry => ({ type: "mode", mode })),
  fc
    .constantFrom("scripted", "other")
    .map((model): LogEntry => ({ type: "model", model: { provider: "scripted", model, retries: 0 } })),
  fc
    .record({ mode: fc.constantFrom("append", "override"), text: fc.string({ minLength: 1 }) })
    .map((systemPrompt): LogEntry => ({ type: "system_prompt", systemPrompt })),
  fc.constant<LogEntry>({ type: "mcp_servers", servers: [] }),
);

/** A log of whole turns, settings between them; `ends`: the entry counts after which a turn has ended. */
export const log = fc
  .array(fc.tuple(fc.array(setting, { maxLength: 2 }), fc.boolean()), { maxLength: 8 })
  .chain((parts) =>
    fc
      .tuple(
        ...parts.map(([settings, withTurn], n) =>
          withTurn ? turn(n).map((entries) => [...settings, ...entries]) : fc.constant(settings),
        ),
      )
      .map((chunks) => {
        const entries: LogEntry[] = [];
        const ends = [0];
        for (const chunk of chunks) {
          entries.push(...chunk);
          if (chunk.at(-1)?.type === "turn_end") ends.push(entries.length);
        }
        return { entries, ends };
      }),
  );

/** A state's summary part alone. */
export const summaryOf = ({ mode, model, systemPrompt, turns, title }: SessionSummary): SessionSummary => ({
  mode,
  model,
  systemPrompt,
  turns,
  title,
});

/** A line as a writer wrote it: the type first (as every entry is written), or last (a line the fast paths parse). */
const lineOf = (entry: LogEntry, typeLast: boolean): string =>
  typeLast
    ? JSON.stringify({ ...entry, type: undefined, kind: entry.type }).replace('"kind"', '"type"')
    : JSON.stringify(entry);

/**
 * A generated log after one of `bases`, then a turn in flight (a part of one, maybe none), its lines written either
 * way (half the logs all typed first, the fast paths' case); `expected`: the fold's summary at the fork point, `count`
 * the lines before it.
 */
export const forkedLog = (bases: fc.Arbitrary<SessionSummary>) =>
  fc
    .record({
      whole: log,
      open: turn(99),
      inFlight: fc.nat(),
      start: bases,
      typeLast: fc.oneof(fc.constant([]), fc.array(fc.boolean())),
    })
    .map(({ whole, open, inFlight, start, typeLast }) => {
      const entries = [...whole.entries, ...open.slice(0, inFlight % open.length)];
      const lines = entries.map((entry, index) => lineOf(entry, typeLast[index] ?? false));
      return { lines, start, expected: whole.entries.reduce(foldSummary, start), count: whole.entries.length };
    });
