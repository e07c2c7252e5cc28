// What a log says of its session is one fold (src/protocol/log/session-state.ts): on any generated log, folding it
// whole, in parts, entry by entry, through a snapshot written and read back, or by replaying it into each journal and
// the fork point gives the same session.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { expect, it } from "vitest";
import {
  emptyState,
  foldLog,
  foldSummary,
  type SessionState,
  type SessionSummary,
} from "../../src/protocol/log/session-state.js";
import {
  parseSnapshotLine,
  snapshotLine,
  snapshotSettings,
  snapshotTailSettings,
} from "../../src/protocol/log/snapshot.js";
import type { LogEntry } from "../../src/protocol/session-log.js";
import { entryTypeOf, forkPoint } from "../../src/store/fork-point.js";
import type { EventSink } from "../../workers/event-sink.js";
import { FileJournal } from "../../workers/log/journal-file.js";
import { RecordJournal } from "../../workers/log/journal-records.js";
import { MemoryJournal } from "../../workers/log/journal.js";
import { header } from "../support/durable.js";
import { tempDir } from "../support/temp-dirs.js";

const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
const start = emptyState(header(id, "/work"));
const at = "2026-01-02T03:04:05.000Z";

const text = fc.oneof(
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

const turn = (n: number): fc.Arbitrary<LogEntry[]> => {
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
const setting: fc.Arbitrary<LogEntry> = fc.oneof(
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
const log = fc.array(fc.tuple(fc.array(setting, { maxLength: 2 }), fc.boolean()), { maxLength: 8 }).chain((parts) =>
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

const summaryOf = ({ mode, model, systemPrompt, turns, title }: SessionSummary): SessionSummary => ({
  mode,
  model,
  systemPrompt,
  turns,
  title,
});

it("folds the same whole, in two parts at any entry, and entry by entry; the summary is the state's", () => {
  fc.assert(
    fc.property(log, fc.nat(), ({ entries }, cutAt) => {
      const before = structuredClone(start);
      const whole = foldLog(start, entries);
      expect(start).toEqual(before);
      const cut = cutAt % (entries.length + 1);
      expect(foldLog(foldLog(start, entries.slice(0, cut)), entries.slice(cut))).toEqual(whole);
      expect(entries.reduce((state: SessionState, entry) => foldLog(state, [entry]), start)).toEqual(whole);
      expect(summaryOf(entries.reduce<SessionSummary>(foldSummary, start))).toEqual(summaryOf(whole));
    }),
  );
});

it("reads a snapshot written at any turn's end back as the state, and its settings as the state's", () => {
  fc.assert(
    fc.property(log, fc.nat(), fc.nat(), ({ entries, ends }, pick, replayBytes) => {
      const state = foldLog(start, entries.slice(0, ends[pick % ends.length]));
      const line = snapshotLine({ base: state, replayLines: pick, replayBytes });
      expect(parseSnapshotLine(line)).toEqual({ base: state, replayLines: pick, replayBytes });
      const { mode, model, systemPrompt, turns, title } = state;
      expect(snapshotSettings(line)).toEqual({
        replayLines: pick,
        replayBytes,
        mode,
        model,
        systemPrompt,
        turns,
        title,
      });
      expect(snapshotTailSettings(line.slice(line.lastIndexOf('"alwaysAllowed"') - 2))).toEqual({
        mode,
        model,
        systemPrompt,
        turns,
        title,
      });
    }),
  );
});

const noEvents = { post: () => {}, postRecord: () => {} } as unknown as EventSink;
const records = (entries: readonly LogEntry[]) => entries.map((entry) => JSON.stringify(entry));

it("gives each journal, restored from a log or its snapshot or appended to, the fold's turns, title and state", () => {
  fc.assert(
    fc.property(log, fc.nat(), ({ entries, ends }, pick) => {
      const whole = foldLog(start, entries);
      const memory = new MemoryJournal(start);
      for (const entry of entries) memory.append(entry);
      expect({ turns: memory.turns, title: memory.title }).toEqual({ turns: whole.turns, title: whole.title });

      const cut = ends[pick % ends.length]!;
      const logged = {
        kind: "records",
        settingsFrom: "log",
        header: JSON.stringify(header(id, "/work")),
        compactBytes: 2 ** 40,
      } as const;
      const snapshot =
        cut === 0
          ? null
          : snapshotLine({ base: foldLog(start, entries.slice(0, cut)), replayLines: 0, replayBytes: 0 });
      const restored = RecordJournal.open(
        { ...logged, snapshot, records: records(entries.slice(cut)), firstSeq: cut },
        id,
        noEvents,
      );
      const appended = RecordJournal.open({ ...logged, snapshot: null, records: [], firstSeq: 0 }, id, noEvents);
      for (const entry of entries) appended.append(entry);
      for (const journal of [restored, appended]) {
        expect({ turns: journal.turns, title: journal.title }).toEqual({ turns: whole.turns, title: whole.title });
        expect(foldLog(journal.base(), journal.entries())).toEqual(whole);
      }
    }),
  );
});

it("gives a log file's journal the fold's state, before and after it compacts", () => {
  const dir = tempDir("ash-log-fold-");
  fc.assert(
    fc.property(log, ({ entries }) => {
      const path = join(dir, `${id}.jsonl`);
      writeFileSync(path, [header(id, dir), ...entries].map((line) => `${JSON.stringify(line)}\n`).join(""));
      const files = {
        path,
        sidecarPath: `${path}.meta`,
        compactingPath: `${path}.compact`,
        compactBytes: 2 ** 40,
        log: () => {},
      };
      const whole = foldLog(emptyState(header(id, dir)), entries);
      const journal = FileJournal.open(files, id);
      expect({ turns: journal.turns, title: journal.title }).toEqual({ turns: whole.turns, title: whole.title });
      journal.compact();
      journal.close();
      const reopened = FileJournal.open(files, id);
      expect({ turns: reopened.turns, title: reopened.title }).toEqual({ turns: whole.turns, title: whole.title });
      expect(foldLog(reopened.base(), reopened.entries())).toEqual(whole);
      reopened.close();
    }),
    { numRuns: 40 },
  );
});

it("puts the fork point after the last ended turn, with the fold's summary there", () => {
  fc.assert(
    fc.property(log, turn(99), fc.nat(), ({ entries }, open, pick) => {
      const inFlight = open.slice(0, 1 + (pick % (open.length - 1)));
      const lines = [...entries, ...inFlight].map((entry) => {
        const line = JSON.stringify(entry);
        return {
          type: entryTypeOf(line.slice(0, 40), () => JSON.parse(line)),
          entry: () => JSON.parse(line) as Record<string, unknown>,
        };
      });
      expect(forkPoint(lines, summaryOf(start), "whole")).toEqual({
        state: summaryOf(foldLog(start, entries)),
        count: entries.length,
      });
    }),
  );
});
