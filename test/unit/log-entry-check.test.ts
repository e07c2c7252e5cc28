// The hand-written check of a log line accepts exactly what the LogEntry schema accepts, on every kind of entry and
// on random damage to them (a key removed, a value replaced by any JSON, a key added).
import fc from "fast-check";
import { expect, it } from "vitest";
import { LogEntry } from "../../src/protocol/log/session-log.js";
import { asLogEntry } from "../../workers/log/log-entry-check.js";
import { logTurns } from "../support/log-turns.js";

const samples: unknown[] = [
  ...logTurns(1, 6),
  { type: "compaction", turnId: "t", kept: 2, summary: "s", turns: 1, tokensBefore: 10, tokensAfter: 5 },
  {
    type: "compaction",
    turnId: "t",
    kept: 6,
    summary: "s",
    turns: 3,
    tokensBefore: 900,
    tokensAfter: 600,
    level: "normal",
    replacedTokens: 500,
  },
  {
    type: "compaction",
    turnId: "t",
    kept: 1,
    summary: "s",
    turns: 3,
    tokensBefore: 900,
    tokensAfter: 400,
    level: "hard",
    replacedTokens: 700,
  },
  { type: "model", model: { provider: "openai-compatible", model: "m", baseUrl: "http://x", contextWindow: 1000 } },
  { type: "model", model: { provider: "scripted", model: "scripted" } },
  { type: "turn_end", turnId: "t", stopReason: "interrupted" },
  { type: "turn_end", turnId: "t", stopReason: "error", error: "boom" },
  { type: "turn_end", turnId: "t", stopReason: "cancelled", error: "turn timeout" },
  {
    type: "assistant_message",
    turnId: "t",
    blocks: [],
    toolCalls: [{ id: "c", name: "bash", input: null }],
    thought: "hm",
  },
];

const damaged = fc
  .tuple(
    fc.constantFrom(...samples),
    fc.nat(),
    fc.oneof(fc.constant("remove"), fc.constant("replace"), fc.constant("add"), fc.constant("inner")),
    fc.jsonValue(),
  )
  .map(([sample, pick, how, value]) => {
    const entry = structuredClone(sample) as Record<string, unknown>;
    const keys = Object.keys(entry);
    const key = keys[pick % keys.length]!;
    if (how === "remove") delete entry[key];
    else if (how === "replace") entry[key] = value;
    else if (how === "add") entry[`extra${pick % 3}`] = value;
    else {
      // One level down: an element of an array, a field of an object.
      const inner = entry[key];
      if (Array.isArray(inner)) {
        if (inner.length > 0) inner[pick % inner.length] = value;
        else inner.push(value);
      } else if (typeof inner === "object" && inner !== null)
        (inner as Record<string, unknown>)[Object.keys(inner)[pick % Math.max(1, Object.keys(inner).length)] ?? "x"] =
          value;
      else entry[key] = value;
    }
    // What a log line can hold: JSON, parsed.
    return JSON.parse(JSON.stringify(entry)) as unknown;
  });

it("accepts what the schema accepts, and returns what it parses", () => {
  for (const sample of samples) expect(asLogEntry(sample)).not.toBeNull();
  fc.assert(
    fc.property(fc.oneof(damaged, fc.jsonValue()), (json) => {
      const parsed = LogEntry.safeParse(json);
      const checked = asLogEntry(json);
      expect(checked !== null).toBe(parsed.success);
      if (parsed.success) expect(checked).toMatchObject(parsed.data);
    }),
    { numRuns: 20_000, seed: Number(process.env.FUZZ_SEED ?? 15) },
  );
});
