// A restore point torn by a crash, damaged on disk, or not a point at all is refused by its digest (or its shape),
// logged and removed: the session is restored from the log's start, as if there were none.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { FileJournal } from "../../workers/log/journal-file.js";
import { logTurns } from "../support/log-turns.js";
import { logFiles, restoredFromStart, restoredSession, sessionId, writeEntries } from "../support/restore-points.js";
import { tempDir } from "../support/temp-dirs.js";

const damages: Record<string, (point: Buffer) => Buffer> = {
  "torn at its middle": (point) => point.subarray(0, point.length >> 1),
  "torn before its last newline": (point) => point.subarray(0, point.length - 1),
  "a byte of its snapshot changed": (point) => {
    const changed = Buffer.from(point);
    changed.writeUInt8(changed.readUInt8(changed.length - 40) ^ 0x01, changed.length - 40);
    return changed;
  },
  // Still valid JSON, and of the same shape: only the digest can tell (a digit 1-8 one higher).
  "a digit of its snapshot changed, the JSON still valid": (point) => {
    const changed = Buffer.from(point);
    const snapshotStart = changed.lastIndexOf(0x0a, changed.length - 2) + 1;
    let at = changed.length - 2;
    while (at > snapshotStart && !(changed[at]! >= 0x31 && changed[at]! <= 0x38)) at--;
    if (at <= snapshotStart) throw new Error("no digit 1-8 in the snapshot line");
    changed[at] = changed[at]! + 1;
    JSON.parse(changed.toString("utf8", snapshotStart, changed.length - 1));
    return changed;
  },
  "zeros where a crash left them": (point) => Buffer.alloc(point.length),
  empty: () => Buffer.alloc(0),
};

for (const [damage, apply] of Object.entries(damages)) {
  it(`a point ${damage}`, () => {
    const dir = tempDir("ash-restore-point-");
    const path = join(dir, `${sessionId}.jsonl`);
    writeEntries(path, dir, logTurns(1, 100));
    const journal = FileJournal.open(logFiles(path), sessionId);
    expect(journal.writeRestorePoint()).toBe(true);
    journal.close();
    writeFileSync(`${path}.restore`, apply(readFileSync(`${path}.restore`)));

    const expected = restoredFromStart(path);
    const said: string[] = [];
    const restored = FileJournal.open(logFiles(path, said), sessionId);
    expect(restoredSession(restored)).toEqual(expected);
    expect(restored.entries().length).toBe(logTurns(1, 100).length);
    restored.close();
    expect(said).toEqual([expect.stringMatching(/^session restore point ignored: /)]);
    expect(existsSync(`${path}.restore`)).toBe(false);
  });
}
