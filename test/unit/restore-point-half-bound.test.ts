// A restore point is written again only once the log has grown by half the last point's size, when that is more than
// the 256 KiB floor: a large state is not written down at every 256 KiB of new log.
import { readFileSync, statSync } from "node:fs";
import { expect, it } from "vitest";
import type { LogEntry } from "../../src/protocol/log/session-log.js";
import { journalOnEmptyLog } from "../support/restore-points.js";

const KIB = 1024;
const FLOOR = 256 * KIB;
/** The idle work runs in a timer of 0 ms after the turn end: a timer of 5 ms runs after it. */
const afterIdleWork = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A turn whose prompt is `bytes` long: the state (and so the point) grows by about that much. */
function bigTurn(n: number, bytes: number): LogEntry[] {
  const turnId = `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
  return [
    { type: "turn_start", turnId, at: "2026-01-02T03:04:05.000Z" },
    { type: "user_message", turnId, text: `${n} `.padEnd(bytes, "x") },
    { type: "assistant_message", turnId, blocks: [`answer ${n}`], toolCalls: [] },
    { type: "turn_end", turnId, stopReason: "end_turn" },
  ];
}

it("waits for half the last point's size of new log, not the floor, once the point is larger than twice the floor", async () => {
  const { path, point, journal } = journalOnEmptyLog();
  let n = 0;
  const turn = async (bytes: number) => {
    for (const entry of bigTurn(++n, bytes)) journal.append(entry);
    journal.endTurn();
    await afterIdleWork();
  };
  const pointSize = () => statSync(point, { throwIfNoEntry: false })?.size ?? 0;
  // Until the last point holds a state of over 800 KiB: half of it is well past the floor.
  while (pointSize() < 800 * KIB) await turn(100 * KIB);
  const last = readFileSync(point);
  const logAtPoint = statSync(path).size;
  // Past the floor, short of half the point: no new point.
  while (statSync(path).size - logAtPoint < FLOOR + 50 * KIB) await turn(50 * KIB);
  expect(statSync(path).size - logAtPoint).toBeLessThan(last.length / 2);
  expect(readFileSync(point).equals(last)).toBe(true);
  // Past half the point: a new one.
  while (statSync(path).size - logAtPoint < last.length / 2) await turn(50 * KIB);
  await turn(1);
  expect(readFileSync(point).equals(last)).toBe(false);
  journal.close();
});
