// Where a fork's history ends (src/store/fork-point.ts): after the last ended turn, with the settings, turns and title
// there; a turn in flight and what it changed are left out, a torn last line too; damage before it is refused. Each
// reader that finds it without folding every entry (line by line, a log file's buffer; the SQL one:
// test/durable/postgres-fork.test.ts) agrees with the fold on any generated log.
import fc from "fast-check";
import { expect, it } from "vitest";
import type { SessionSummary } from "../../src/protocol/log/session-state.js";
import { forkPointInLog } from "../../src/store/dir/fork-log.js";
import { forkedLog, summaryOf } from "../support/log-arbitraries.js";
import { LogError, type LogEntry } from "../../src/protocol/log/session-log.js";
import { entryTypeOf, forkPoint, type ForkPointState } from "../../src/store/fork-point.js";

const base: ForkPointState = {
  mode: "ask",
  model: { provider: "scripted", model: "scripted", retries: 0 },
  systemPrompt: null,
  turns: 3,
  title: null,
};
const line = (text: string) => ({
  type: entryTypeOf(text.slice(0, 40), () => JSON.parse(text)),
  entry: () => JSON.parse(text) as Record<string, unknown>,
});
const lines = (entries: Array<LogEntry | string>) =>
  entries.map((entry) => line(typeof entry === "string" ? entry : JSON.stringify(entry)));
const turn = (id: string, text: string): LogEntry[] => [
  { type: "turn_start", turnId: id, at: "2026-01-02T03:04:05.000Z" },
  { type: "user_message", turnId: id, text },
  { type: "assistant_message", turnId: id, blocks: [`You said: ${text}`], toolCalls: [] },
  { type: "turn_end", turnId: id, stopReason: "end_turn" },
];

it("ends after the last ended turn, with the settings changed between turns and not those of a turn in flight", () => {
  const entries: Array<LogEntry | string> = [
    ...turn("a", "first\nline two"),
    { type: "mode", mode: "read-only" },
    ...turn("b", "second"),
    { type: "system_prompt", systemPrompt: { mode: "append", text: "be brief" } },
    { type: "turn_start", turnId: "c", at: "2026-01-02T03:04:05.000Z" },
    { type: "user_message", turnId: "c", text: "in flight" },
    { type: "mode", mode: "auto" },
  ];
  const { state, count } = forkPoint(lines(entries), base, "last line may be torn");
  expect(count).toBe(10);
  expect(state).toEqual({
    ...base,
    mode: "read-only",
    systemPrompt: { mode: "append", text: "be brief" },
    turns: 5,
    title: "first",
  });
});

it("leaves a torn last line out, and refuses a line that is not an entry before the end", () => {
  const whole = lines(turn("a", "one"));
  expect(forkPoint([...whole, line('{"type":"turn_sta')], base, "last line may be torn").count).toBe(4);
  expect(() =>
    forkPoint([...whole, line("garbage"), ...lines(turn("b", "two"))], base, "last line may be torn"),
  ).toThrow(LogError);
  expect(() => forkPoint([...whole, line("garbage")], base, "whole")).toThrow(LogError);
  // An entry written with its keys in another order is still read by its type.
  expect(forkPoint(lines([JSON.stringify({ mode: "full-access", type: "mode" })]), base, "whole").state.mode).toBe(
    "full-access",
  );
  expect(() => forkPoint(lines([{ type: "mode", mode: "sideways" } as unknown as LogEntry]), base, "whole")).toThrow(
    LogError,
  );
});

it("reads a log file's entries the same way by its lines' heads and line by line", async () => {
  const { logTurns } = await import("../support/log-turns.js");
  const entries: LogEntry[] = [
    ...logTurns(1, 7),
    { type: "system_prompt", systemPrompt: { mode: "override", text: "only this" } },
    ...turn("z", "last whole turn"),
    { type: "turn_start", turnId: "open", at: "2026-01-02T03:04:05.000Z" },
    { type: "mode", mode: "full-access" },
  ];
  const typed = Buffer.from(entries.map((entry) => `${JSON.stringify(entry)}\n`).join("") + '{"type":"tu');
  // The same entries, the type key last: every line is read and parsed.
  const reordered = Buffer.from(
    entries
      .map(
        (entry) => `${JSON.stringify({ ...entry, type: undefined, kind: entry.type }).replace('"kind"', '"type"')}\n`,
      )
      .join(""),
  );
  const fast = forkPointInLog(typed, base);
  const slow = forkPointInLog(reordered, base);
  expect(fast.state).toEqual(slow.state);
  expect(fast.state).toMatchObject({
    turns: base.turns + 8,
    mode: "auto",
    systemPrompt: { mode: "override", text: "only this" },
    title: "run step 1",
  });
  expect(typed.subarray(0, fast.length).toString().endsWith('"stopReason":"end_turn"}\n')).toBe(true);
  expect(reordered.subarray(0, slow.length).toString().split("\n")).toHaveLength(entries.length - 2 + 1);
});

/** A base with a title or none (the first prompt after it gives one only when there is none). */
const bases = fc.constantFrom<SessionSummary>(base, { ...base, title: "titled before" });

it("puts the fork point after the last ended turn, with the fold's summary there, line by line and in a log's buffer", () => {
  fc.assert(
    fc.property(forkedLog(bases), fc.constantFrom("", '{"type":"tu'), ({ lines, start, expected, count }, torn) => {
      expect(forkPoint(lines.map(line), start, "whole")).toEqual({ state: summaryOf(expected), count });
      const text = lines.map((text) => `${text}\n`);
      const inLog = forkPointInLog(Buffer.from(text.join("") + torn), start);
      expect(inLog).toEqual({
        state: summaryOf(expected),
        length: Buffer.byteLength(text.slice(0, count).join("")),
      });
    }),
  );
});
