// A compaction that cannot write its new file leaves the log as it was, and the session goes on appending to it.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { FileJournal } from "../../workers/log/journal-file.js";
import { header } from "../support/durable.js";
import { logTurns } from "../support/log-turns.js";
import { tempDir } from "../support/temp-dirs.js";

const id = "6a1b2c3d-4e5f-4a1b-8c2d-3e4f5a6b7c8d";
it("throws, leaves the log byte for byte, and later appends land in it", () => {
  const dir = tempDir("ash-compact-fail-");
  const path = join(dir, `${id}.jsonl`);
  // Enough turns that the compacted log would be smaller (else the compaction is skipped before it writes anything).
  writeFileSync(path, [header(id, dir), ...logTurns(1, 50)].map((line) => `${JSON.stringify(line)}\n`).join(""));
  const before = readFileSync(path);
  const files = {
    path,
    sidecarPath: `${path}.meta`,
    compactingPath: join(dir, "no-such-dir", "new.jsonl"),
    restorePointPath: `${path}.restore`,
    compactBytes: 1024,
    log: () => {},
  };
  const journal = FileJournal.open(files, id);
  expect(() => journal.compact()).toThrow(/ENOENT/);
  expect(readFileSync(path).equals(before)).toBe(true);

  journal.append({ type: "turn_start", turnId: "t51", at: "2026-01-02T03:04:05.000Z" });
  journal.append({ type: "turn_end", turnId: "t51", stopReason: "end_turn" });
  journal.close();
  const reopened = FileJournal.open({ ...files, compactBytes: 2 ** 40 }, id);
  expect(reopened.entries()).toEqual([
    ...logTurns(1, 50),
    { type: "turn_start", turnId: "t51", at: "2026-01-02T03:04:05.000Z" },
    { type: "turn_end", turnId: "t51", stopReason: "end_turn" },
  ]);
  expect(reopened.turns).toBe(51);
  reopened.close();
});
