// A log's lines are read from one decoding of its bytes, while what is kept and what is cut are counted in bytes: text
// past ASCII in the entries, and a torn last line that ends inside a character, still cut at the last whole line.
import { expect, it } from "vitest";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { restoreLog } from "../../workers/log/log-repair.js";
import { header } from "../support/durable.js";

const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
const turnId = "7b2c3d4e-5f6a-4b2c-9d3e-4f5a6b7c8d9e";

it("keeps every whole line and cuts a torn tail, counting bytes, when entries hold multi-byte text", () => {
  const entries: LogEntry[] = [
    { type: "turn_start", turnId, at: "2026-12-06T00:00:00.000Z" },
    { type: "user_message", turnId, text: "naïve café: ünïcödé, 日本語, and 🙂" },
    { type: "assistant_message", turnId, blocks: ["déjà vu — ✓"], toolCalls: [] },
    { type: "turn_end", turnId, stopReason: "end_turn" },
  ];
  const whole = Buffer.from(
    [JSON.stringify(header(id, "/work")), ...entries.map((entry) => JSON.stringify(entry))].join("\n") + "\n",
  );
  // The torn write stops inside the three bytes of "日".
  const torn = Buffer.from(JSON.stringify({ type: "user_message", turnId, text: "日本" })).subarray(0, 80);
  expect(torn.toString("utf8")).toContain("\ufffd");

  const restored = restoreLog(Buffer.concat([whole, torn]), id);

  expect(restored.entries).toEqual(entries);
  expect(restored.validLength).toBe(whole.length);
  expect(restored.droppedBytes).toBe(torn.length);
  expect(restored.repairs).toEqual([]);
});
