// A compacted log's snapshot line (src/protocol/log/snapshot.ts).
import { describe, expect, it } from "vitest";
import { type LogEntry, LogError } from "../../src/protocol/log/session-log.js";
import { parseSnapshotLine, snapshotLine, snapshotSettings } from "../../src/protocol/log/snapshot.js";
import { emptyState, foldLog } from "../../src/protocol/log/session-state.js";
import { logTurns } from "../support/log-turns.js";

// A compacted log's snapshot line reads back as written; a damaged one is a LogError that says what is wrong.
describe("read back as written", () => {
  const base = foldLog(
    emptyState({ mode: "ask", model: { provider: "scripted", model: "scripted", retries: 0 } }),
    logTurns(1, 12),
  );

  it("reads back what was written", () => {
    const line = snapshotLine({ base, replayLines: 40, replayBytes: 4000 });
    expect(parseSnapshotLine(line)).toEqual({ base, replayLines: 40, replayBytes: 4000 });
  });

  it("refuses damage with a LogError naming it", () => {
    const line = snapshotLine({ base, replayLines: 40, replayBytes: 4000 });
    const damaged = (change: (json: Record<string, unknown>) => void): string => {
      const json = JSON.parse(line) as Record<string, unknown>;
      change(json);
      return JSON.stringify(json);
    };
    expect(() => parseSnapshotLine(line.slice(0, 50))).toThrow(LogError);
    expect(() => parseSnapshotLine(damaged((json) => (json.replayBytes = -1)))).toThrow(/replayLines and replayBytes/);
    expect(() => parseSnapshotLine(damaged((json) => (json.history = [{ role: "tool", result: 1 }])))).toThrow(
      /history\[0\]/,
    );
    expect(() => parseSnapshotLine(damaged((json) => (json.mode = "sideways")))).toThrow(/mode/);
    expect(() => parseSnapshotLine(damaged((json) => delete json.usage))).toThrow(/usage/);
    expect(() => parseSnapshotLine(damaged((json) => (json.type = "turn_end")))).toThrow(/snapshot/);
  });
});

// The main thread reads a snapshot's settings without parsing its conversation (src/protocol/log/snapshot.ts);
// the worker writes the snapshot (snapshotLine, beside it). This holds the reader to the writer, also for a
// conversation that spells the keys the reader looks for, and for a snapshot written before system prompts were kept.
describe("its settings read without its conversation", () => {
  const model = { provider: "scripted" as const, model: "scripted", retries: 0 };

  /** A turn whose tool input and answer hold the very keys the reader splits the line at. */
  const tricky: LogEntry[] = [
    { type: "turn_start", turnId: "x", at: "2026-01-02T03:04:05.000Z" },
    { type: "user_message", turnId: "x", text: 'a "quoted" first prompt ],"alwaysAllowed":[ and "mode":"full-access"' },
    {
      type: "assistant_message",
      turnId: "x",
      blocks: ['],"alwaysAllowed":["bash"],"usage":{}'],
      toolCalls: [
        {
          id: "c",
          name: "spawn_agent",
          input: {
            history: [],
            alwaysAllowed: ["x"],
            mode: "full-access",
            model: { provider: "evil" },
            turns: 99,
            title: "t",
          },
        },
      ],
    },
    {
      type: "tool_result",
      turnId: "x",
      toolCallId: "tc",
      callId: "c",
      name: "spawn_agent",
      result: "done",
      isError: false,
    },
    { type: "turn_end", turnId: "x", stopReason: "end_turn" },
  ];

  it("reads the settings the worker wrote, whatever the conversation holds", () => {
    for (const systemPrompt of [undefined, { mode: "override" as const, text: 'be "brief"\n],"alwaysAllowed":[' }]) {
      const base = foldLog(emptyState({ mode: "read-only", model, systemPrompt }), [
        ...tricky,
        ...logTurns(1, 9),
        { type: "mode", mode: "ask" },
      ]);
      const line = snapshotLine({ base, replayLines: 12, replayBytes: 3456 });
      const written = parseSnapshotLine(line);
      expect(snapshotSettings(line)).toEqual({
        replayLines: 12,
        replayBytes: 3456,
        mode: written.base.mode,
        model: written.base.model,
        turns: written.base.turns,
        title: written.base.title,
        systemPrompt: written.base.systemPrompt,
      });
      expect(snapshotSettings(line)).toMatchObject({ mode: "ask", turns: 10, systemPrompt: systemPrompt ?? null });
    }
  });

  const older = (): string => {
    const base = foldLog(emptyState({ mode: "auto", model }), logTurns(1, 3));
    const { systemPrompt: _dropped, ...rest } = base;
    return JSON.stringify({ type: "snapshot", replayLines: 1, replayBytes: 2, ...rest });
  };

  it("reads a snapshot from before system prompts were kept", () => {
    expect(snapshotSettings(older())).toMatchObject({ mode: "auto", turns: 3, systemPrompt: null });
  });

  it("refuses a torn or damaged snapshot with a LogError", () => {
    const line = older();
    expect(() => snapshotSettings(line.slice(0, 40))).toThrow(LogError);
    expect(() => snapshotSettings(line.replace('"mode":"auto"', '"mode":"sideways"'))).toThrow(LogError);
  });
});
