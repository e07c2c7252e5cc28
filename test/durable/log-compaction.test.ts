// Bounded session logs through a real host: a log past --log-compact-bytes is rewritten by its worker into a
// snapshot and the replayable history (off the request path: after the open and after each turn end); restores
// read the snapshot, session/load still replays every message the client saw, and a kill -9 or a compaction's
// leftover file never costs a turn. A long log that compaction would not shrink is restored from its restore point.
import { randomUUID } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { eventually, exists, header, paths, transcript, writeLog } from "../support/durable.js";
import { join } from "node:path";
import { startHost, tempDir } from "../support/host.js";
import { logTurns } from "../support/log-turns.js";
import { script, tool } from "../support/tools.js";

/** What session/load shows of logTurns(first, last), as transcript() reduces it. */
function shown(first: number, last: number): string[] {
  const lines: string[] = [];
  let calls = 0;
  for (let n = first; n <= last; n++) {
    if (n % 3 !== 1) {
      lines.push(`user: question ${n}`, ...(n % 5 === 0 ? [`thought: thinking ${n}`] : []), `agent: answer ${n}`);
    } else {
      calls++;
      lines.push(
        `user: run step ${n}`,
        "agent: running it",
        `tool call#${calls}: make ${n} {"command":"make ${n}"}`,
        `tool call#${calls} completed: built ${n}`,
        `agent: step ${n} done`,
      );
    }
  }
  return lines;
}

const firstLine = (path: string) =>
  JSON.parse(readFileSync(path, "utf8").split("\n", 1)[0]!) as { formatVersion: number };
const secondLine = (path: string) =>
  JSON.parse(readFileSync(path, "utf8").split("\n", 2)[1]!) as { type: string; turns?: number };

describe("log compaction", () => {
  it("a 10,000-turn log is compacted after it is opened; reloads read the snapshot and replay every message", async () => {
    const state = tempDir();
    const h = await startHost(["--state-dir", state, "--log-compact-bytes", "65536"]);
    try {
      const id = randomUUID();
      const cwd = tempDir();
      const path = writeLog(state, id, [header(id, cwd), ...logTurns(1, 10_000)]);
      const sizeBefore = statSync(path).size;
      const expected = shown(1, 10_000);

      expect(transcript(await h.client.load(id, cwd))).toEqual(expected);
      await eventually(() => expect(firstLine(path).formatVersion).toBe(2));
      expect(secondLine(path)).toMatchObject({ type: "snapshot", turns: 10_000 });
      // Only what a load shows is kept of the history: usage, turn marks, permissions and mode changes are folded.
      expect(statSync(path).size).toBeLessThan(sizeBefore);
      expect(h.stderr()).toMatch(new RegExp(`"sessionId":"${id}".*"msg":"session log compacted"`));

      expect((await h.client.prompt(id, "after compaction")).text).toBe("You said: after compaction");
      await h.client.close(id);
      const reloaded = transcript(await h.client.load(id, cwd));
      expect(reloaded).toEqual([...expected, "user: after compaction", "agent: You said: after compaction"]);
      // The snapshot carried the turn count and the title: the listing shows the session as it was.
      expect((await h.client.list({ cwd })).sessions).toMatchObject([
        { sessionId: id, title: "run step 1", _meta: { "acp-session-host": { turns: 10_001 } } },
      ]);
      await h.client.close(id);
    } finally {
      await h.dispose();
    }
  }, 120_000);

  it("live turns past a small threshold compact again and again; after kill -9 every turn replays", async () => {
    const state = tempDir();
    const cwd = tempDir();
    const h = await startHost(["--state-dir", state, "--log-compact-bytes", "1024"]);
    const { sessionId: id } = await h.client.newSession(cwd);
    const said: string[] = [];
    // Short turns: their marks, folded into the snapshot, weigh more than the conversation the snapshot repeats, so
    // each compaction makes the log smaller (one that would not is skipped: see below).
    for (let i = 1; i <= 40; i++) {
      const text = `turn ${i}`;
      expect((await h.client.prompt(id, text)).text).toBe(`You said: ${text}`);
      said.push(`user: ${text}`, `agent: You said: ${text}`);
    }
    const path = paths(state, id).log;
    await eventually(() => expect(secondLine(path)).toMatchObject({ type: "snapshot" }));
    expect(h.stderr().match(/session log compacted/g)?.length).toBeGreaterThan(3);
    process.kill(h.pid, "SIGKILL");
    await h.dispose().catch(() => null);

    const again = await startHost(["--state-dir", state, "--log-compact-bytes", "1024"]);
    try {
      expect(transcript(await again.client.load(id, cwd))).toEqual(said);
      expect((await again.client.prompt(id, "still here")).text).toBe("You said: still here");
    } finally {
      await again.dispose();
    }
  }, 120_000);

  it("a compaction that would not make the log smaller is skipped and logged, and not tried again at every turn", async () => {
    const state = tempDir();
    const cwd = tempDir();
    // A file said back several times: the snapshot would repeat every copy the history keeps.
    writeFileSync(join(cwd, "big.txt"), "b".repeat(100 * 1024));
    const h = await startHost([
      "--state-dir",
      state,
      "--log-compact-bytes",
      "65536",
      "--output-cap-bytes",
      String(256 * 1024),
      "--default-mode",
      "auto",
    ]);
    try {
      const { sessionId: id } = await h.client.newSession(cwd);
      const says = Array.from({ length: 4 }, () => ({ say: "{{result}}" }));
      await h.client.prompt(id, script(tool("read_file", { path: "big.txt" }), ...says));
      const path = paths(state, id).log;
      const skipped = () =>
        h.stderr().match(/session log not compacted: the compacted log would not be smaller/g)?.length ?? 0;
      await eventually(() => expect(skipped()).toBe(1));
      const line = h
        .stderr()
        .split("\n")
        .find((text) => text.includes("session log not compacted"))!;
      const { bytesBefore, bytesAfter } = JSON.parse(line) as { bytesBefore: number; bytesAfter: number };
      expect(bytesAfter).toBeGreaterThanOrEqual(bytesBefore);
      // The log was not rewritten: still as appended, its size what the skip measured.
      expect(firstLine(path).formatVersion).toBe(1);
      expect(statSync(path).size).toBe(bytesBefore);
      expect(h.stderr()).not.toMatch(new RegExp(`"sessionId":"${id}".*"msg":"session log compacted"`));

      // A short turn after it adds far less than --log-compact-bytes: no second try (that would cost as much again).
      await h.client.prompt(id, "short");
      await h.client.close(id);
      expect(skipped()).toBe(1);
      expect(transcript(await h.client.load(id, cwd)).at(-1)).toBe("agent: You said: short");
    } finally {
      await h.dispose();
    }
  });

  it("a compaction's file left unrenamed by a crash is ignored, then replaced by the next compaction", async () => {
    const state = tempDir();
    const h = await startHost(["--state-dir", state, "--log-compact-bytes", "4096"]);
    try {
      const id = randomUUID();
      const cwd = tempDir();
      const path = writeLog(state, id, [header(id, cwd), ...logTurns(1, 10)]);
      const leftover = paths(state, id).compacting;
      // What a kill between the write of the new file and its rename leaves: a torn copy next to the log.
      writeFileSync(leftover, readFileSync(path).subarray(0, 700));
      expect(transcript(await h.client.load(id, cwd))).toEqual(shown(1, 10));
      await eventually(() => expect(firstLine(path).formatVersion).toBe(2));
      expect(exists(leftover)).toBe(false);
      expect(transcript(await h.client.load(id, cwd))).toEqual(shown(1, 10));
    } finally {
      await h.dispose();
    }
  });

  it("a long log not compacted gets a restore point; after a restart the session goes on from it and replays whole", async () => {
    const state = tempDir();
    const cwd = tempDir();
    const id = randomUUID();
    const point = paths(state, id).restorePoint;
    const h = await startHost(["--state-dir", state]);
    try {
      writeLog(state, id, [header(id, cwd), ...logTurns(1, 3_000)]);
      await h.client.resume(id, cwd);
      // Read from its start once: the worker leaves a point after the open, off the request path.
      await eventually(() => expect(exists(point)).toBe(true));
      expect((await h.client.prompt(id, "first after")).text).toBe("You said: first after");
    } finally {
      process.kill(h.pid, "SIGKILL");
      await h.dispose().catch(() => null);
    }
    expect(firstLine(paths(state, id).log).formatVersion).toBe(1);

    const again = await startHost(["--state-dir", state]);
    try {
      await again.client.resume(id, cwd);
      expect((await again.client.prompt(id, "after restart")).text).toBe("You said: after restart");
      await again.client.close(id);
      expect(transcript(await again.client.load(id, cwd))).toEqual([
        ...shown(1, 3_000),
        "user: first after",
        "agent: You said: first after",
        "user: after restart",
        "agent: You said: after restart",
      ]);
      expect((await again.client.list({ cwd })).sessions).toMatchObject([
        { sessionId: id, title: "run step 1", _meta: { "acp-session-host": { turns: 3_002 } } },
      ]);
      expect(again.stderr()).not.toMatch(/restore point ignored/);
    } finally {
      await again.dispose();
    }
  }, 120_000);

  it("session/delete removes a compaction's leftover file and the restore point too", async () => {
    const state = tempDir();
    const h = await startHost(["--state-dir", state]);
    try {
      const id = randomUUID();
      const cwd = tempDir();
      writeLog(state, id, [header(id, cwd), ...logTurns(1, 2)]);
      writeFileSync(paths(state, id).compacting, "torn");
      writeFileSync(paths(state, id).restorePoint, "a point");
      writeFileSync(`${paths(state, id).restorePoint}.new`, "a torn point");
      await h.client.delete(id);
      expect(exists(paths(state, id).compacting)).toBe(false);
      expect(exists(paths(state, id).restorePoint)).toBe(false);
      expect(exists(`${paths(state, id).restorePoint}.new`)).toBe(false);
    } finally {
      await h.dispose();
    }
  });
});
