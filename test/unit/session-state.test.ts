// What a session's log says of it, folded (src/protocol/log/session-state.ts): one fold for every reader, a base stored
// at any turn boundary, and the history a compaction entry leaves.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
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
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import type { EventSink } from "../../workers/event-sink.js";
import { FileJournal } from "../../workers/log/journal-file.js";
import { RecordJournal } from "../../workers/log/journal-records.js";
import { type JournalEntry, MemoryJournal } from "../../workers/log/journal.js";
import { header } from "../support/durable.js";
import { log, summaryOf } from "../support/log-arbitraries.js";
import { tempDir } from "../support/temp-dirs.js";
import { logTurns } from "../support/log-turns.js";

// What a log says of its session is one fold (src/protocol/log/session-state.ts): on any generated log, folding it
// whole, in parts, entry by entry, through a snapshot written and read back, or by replaying it into each journal
// gives the same session (the fork point's readers: fork-point.test.ts).
describe("one fold", () => {
  const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
  const start = emptyState(header(id, "/work"));

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
          restorePointPath: `${path}.restore`,
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
});

// A compaction may fold a log at any turn boundary: the base it stores, advanced by the entries after it, is the
// session that folding the whole log gives.
describe("a base at any turn boundary", () => {
  const header = { mode: "ask" as const, model: { provider: "scripted" as const, model: "scripted", retries: 0 } };

  it("folding in parts at turn boundaries gives the base folding it whole gives", () => {
    const whole = foldLog(emptyState(header), logTurns(1, 30));
    expect(whole).toMatchObject({
      turns: 30,
      title: "run step 1",
      mode: "auto",
      alwaysAllowed: ["bash", "write_file"],
    });
    expect(whole.usage.prompt).toBeGreaterThan(0);
    for (const cut of [1, 7, 29]) {
      const first = foldLog(emptyState(header), logTurns(1, cut));
      expect(foldLog(first, logTurns(cut + 1, 30))).toEqual(whole);
    }
  });
});

// A session's history rebuilt from its log: a compaction entry replaces what came before its kept messages.
describe("a compaction entry in the history", () => {
  const historyFrom = (entries: readonly JournalEntry[]) =>
    foldLog(emptyState({ mode: "ask", model: { provider: "scripted", model: "scripted", retries: 0 } }), entries)
      .history;

  const turn = (n: number): JournalEntry[] => [
    { type: "turn_start", turnId: `t${n}`, at: "2026-01-01T00:00:00.000Z" },
    { type: "user_message", turnId: `t${n}`, text: `q${n}` },
    { type: "assistant_message", turnId: `t${n}`, blocks: [`a${n}`], toolCalls: [], thought: `th${n}` },
    { type: "turn_end", turnId: `t${n}`, stopReason: "end_turn" },
  ];
  const compaction = (kept: number, summary: string): JournalEntry => ({
    type: "compaction",
    turnId: "t",
    kept,
    summary,
    turns: 1,
    tokensBefore: 10,
    tokensAfter: 5,
  });

  describe("history with compactions", () => {
    it("keeps the last `kept` messages after the summary; later entries follow; a second compaction folds the first", () => {
      const entries = [...turn(1), ...turn(2), ...turn(3), compaction(2, "S1"), ...turn(4)];
      expect(historyFrom(entries)).toEqual([
        { role: "summary", text: "S1" },
        { role: "user", text: "q3" },
        { role: "assistant", blocks: ["a3"], toolCalls: [], thought: "th3" },
        { role: "user", text: "q4" },
        { role: "assistant", blocks: ["a4"], toolCalls: [], thought: "th4" },
      ]);
      expect(historyFrom([...entries, compaction(0, "S2")])).toEqual([{ role: "summary", text: "S2" }]);
    });
  });
});
