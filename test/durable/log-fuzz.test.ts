// Log fuzz: a real session log (written by a real host: messages, bash, a file write, tool output), truncated at
// every byte offset of its last record and damaged by seeded random byte flips. Load-repair throws nothing but
// LogError, and only for damage before the last line; it never loses a turn that ended before the damage; a
// repaired session replays and takes new prompts through a real host.
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { LogError, type LogEntry } from "../../src/protocol/log/session-log.js";
import { restoreLog } from "../../workers/log/log-repair.js";
import { paths, transcript } from "../support/durable.js";
import { startHost, tempDir } from "../support/host.js";
import { bash, script, tool } from "../support/tools.js";

const seed = Number(process.env.FUZZ_SEED ?? 15);

interface Line {
  start: number;
  end: number;
  entry: LogEntry | null;
}

let log: Buffer;
let sessionId: string;
let cwd: string;
let lines: Line[];

function splitLines(data: Buffer): Line[] {
  const found: Line[] = [];
  for (let start = 0; start < data.length;) {
    const end = data.indexOf(0x0a, start);
    if (end < 0) break;
    found.push({ start, end, entry: start === 0 ? null : (JSON.parse(data.toString("utf8", start, end)) as LogEntry) });
    start = end + 1;
  }
  return found;
}

/** Entries of every turn whose turn_end line lies wholly before `offset`. */
function turnsEndedBefore(offset: number): LogEntry[] {
  let upTo = 0;
  lines.forEach((line, index) => {
    if (line.entry?.type === "turn_end" && line.end < offset) upTo = index;
  });
  return lines.slice(1, upTo + 1).map((line) => line.entry!);
}

/** Restores, allowing only LogError; returns null when the log was refused. */
function restore(data: Buffer): LogEntry[] | null {
  try {
    return restoreLog(data, sessionId).entries;
  } catch (error) {
    if (error instanceof LogError) return null;
    throw error;
  }
}

beforeAll(async () => {
  const state = tempDir();
  cwd = tempDir();
  const h = await startHost(["--state-dir", state, "--warm-workers", "1"]);
  try {
    ({ sessionId } = await h.client.newSession(cwd, { mode: "auto" }));
    await h.client.prompt(sessionId, "hello");
    await h.client.prompt(
      sessionId,
      script(
        { say: "running" },
        bash("printf 'a\\nb\\n'; seq 1 200"),
        tool("write_file", { path: "notes.txt", content: "é\n\u0000x" }),
      ),
    );
    await h.client.prompt(sessionId, script(tool("read_file", { path: "notes.txt" }), { say: "done ✓" }));
    await h.client.prompt(sessionId, "last turn");
  } finally {
    await h.dispose();
  }
  log = readFileSync(paths(state, sessionId).log);
  lines = splitLines(log);
}, 60_000);

describe("log fuzz", () => {
  it("the log under test has turns with tool calls and output", () => {
    const types = lines.map((line) => line.entry?.type);
    expect(types.filter((type) => type === "turn_end")).toHaveLength(4);
    expect(types).toContain("tool_result");
    expect(lines.at(-1)?.entry?.type).toBe("turn_end");
  });

  it("a cut at every byte offset of the last record keeps every turn that ended before it", () => {
    const last = lines.at(-2)!;
    for (let offset = last.start; offset <= log.length; offset++) {
      const entries = restore(log.subarray(0, offset));
      if (entries === null) throw new Error(`refused a log cut at byte ${offset}`);
      expect(entries.slice(0, turnsEndedBefore(offset).length), `cut at ${offset}`).toEqual(turnsEndedBefore(offset));
    }
  });

  it("a cut at every byte offset anywhere never throws and keeps every earlier turn", () => {
    for (let offset = lines[0]!.end + 1; offset <= log.length; offset++) {
      const entries = restore(log.subarray(0, offset));
      if (entries === null) throw new Error(`refused a log cut at byte ${offset}`);
      const kept = turnsEndedBefore(offset);
      expect(entries.slice(0, kept.length)).toEqual(kept);
    }
  });

  it(`random byte flips: only LogError, only for damage before the last line, no earlier turn lost (seed ${seed})`, () => {
    const body = lines[0]!.end + 1;
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ at: fc.integer({ min: body, max: log.length - 1 }), xor: fc.integer({ min: 1, max: 255 }) }),
          { minLength: 1, maxLength: 4 },
        ),
        (flips) => {
          const data = Buffer.from(log);
          for (const flip of flips) data[flip.at]! ^= flip.xor;
          const first = Math.min(...flips.map((flip) => flip.at));
          const entries = restore(data);
          if (entries === null) {
            // Refusing is for damage before the end: a flip in the last line alone is a torn tail.
            expect(first, "refused although only the last line was damaged").toBeLessThan(lines.at(-1)!.start);
            return;
          }
          const kept = turnsEndedBefore(first);
          expect(entries.slice(0, kept.length)).toEqual(kept);
        },
      ),
      { seed, numRuns: 2_000 },
    );
  });

  it("repaired logs replay what ended before the damage and take new prompts through a real host", async () => {
    const state = tempDir();
    mkdirSync(state, { recursive: true });
    const h = await startHost(["--state-dir", state, "--warm-workers", "1"]);
    try {
      const toolCall = lines.findIndex((line) => line.entry?.type === "tool_call");
      const samples = [
        { name: "torn last record", data: log.subarray(0, lines.at(-1)!.start + 7) },
        { name: "cut after a tool call started", data: log.subarray(0, lines[toolCall]!.end + 1) },
        {
          name: "flipped byte in the last line",
          data: Buffer.concat([
            log.subarray(0, lines.at(-1)!.start + 3),
            Buffer.from([0xff]),
            log.subarray(lines.at(-1)!.start + 4),
          ]),
        },
      ];
      for (const sample of samples) {
        // Each sample becomes a session of its own: the same log under a new id.
        const id = randomUUID();
        const text = sample.data.toString("latin1").replace(sessionId, id);
        writeFileSync(paths(state, id).log, Buffer.from(text, "latin1"));
        const kept = restoreLog(sample.data, sessionId).entries.filter((entry) => entry.type === "user_message");
        const replay = transcript(await h.client.load(id, cwd));
        expect(
          replay.filter((line) => line.startsWith("user: ")),
          sample.name,
        ).toEqual(kept.map((entry) => `user: ${(entry as { text: string }).text}`));
        expect((await h.client.prompt(id, `after ${sample.name}`)).text).toBe(`You said: after ${sample.name}`);
        await h.client.close(id);
      }
    } finally {
      await h.dispose();
    }
  }, 120_000);
});
