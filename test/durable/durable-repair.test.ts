import { randomUUID } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_RUN, OUTCOME_UNKNOWN } from "../../workers/log/log-repair.js";
import { exists, header, logEntries, paths, transcript, writeLog } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";

let h: TestHost;
let state: string;

beforeAll(async () => {
  state = tempDir();
  h = await startHost(["--state-dir", state, "--warm-workers", "1"]);
});

afterAll(async () => {
  await h.dispose();
});

const at = "2026-01-02T03:04:05.000Z";
const finishedTurn = (turnId: string, text: string, answer: string) => [
  { type: "turn_start", turnId, at },
  { type: "user_message", turnId, text },
  { type: "assistant_message", turnId, blocks: [answer], toolCalls: [] },
  { type: "turn_end", turnId, stopReason: "end_turn" },
];

async function stillServes(): Promise<void> {
  const { sessionId } = await h.client.newSession(tempDir());
  expect((await h.client.prompt(sessionId, "still serving")).text).toBe("You said: still serving");
  await h.client.close(sessionId);
}

describe("load-repair", () => {
  it("drops a torn last line, answers the open turn's tool calls as unknown or not run, and closes it as interrupted", async () => {
    const id = randomUUID();
    const cwd = tempDir();
    const tail = `{"type":"tool_result","turnId":"t2","toolC`;
    writeLog(
      state,
      id,
      [
        header(id, cwd),
        ...finishedTurn("t1", "first", "answer one"),
        { type: "turn_start", turnId: "t2", at },
        { type: "user_message", turnId: "t2", text: "second" },
        {
          type: "assistant_message",
          turnId: "t2",
          blocks: ["working"],
          toolCalls: [
            { id: "call_1", name: "bash", input: { command: "make" } },
            { id: "call_2", name: "bash", input: { command: "make test" } },
          ],
        },
        {
          type: "tool_call",
          turnId: "t2",
          toolCallId: "tc-1",
          callId: "call_1",
          name: "bash",
          title: "make",
          kind: "execute",
          input: { command: "make" },
        },
      ],
      tail,
    );
    const replay = transcript(await h.client.load(id, cwd));
    expect(replay).toEqual([
      "user: first",
      "agent: answer one",
      "user: second",
      "agent: working",
      'tool call#1: make {"command":"make"}',
      `tool call#1 failed: ${OUTCOME_UNKNOWN}`,
    ]);
    const text = readFileSync(paths(state, id).log, "utf8");
    // Every line whole: the torn tail was cut (the repairs follow the last complete line).
    expect(text.endsWith("\n")).toBe(true);
    for (const line of text.split("\n").slice(0, -1)) expect(() => JSON.parse(line)).not.toThrow();
    expect(text.split("\n")).toHaveLength(1 + 8 + 3 + 1);
    const repaired = logEntries(state, id).slice(-3);
    expect(repaired).toMatchObject([
      {
        type: "tool_result",
        turnId: "t2",
        toolCallId: "tc-1",
        callId: "call_1",
        result: OUTCOME_UNKNOWN,
        isError: true,
      },
      { type: "tool_result", turnId: "t2", callId: "call_2", result: NOT_RUN, isError: true },
      { type: "turn_end", turnId: "t2", stopReason: "interrupted" },
    ]);
    expect(h.stderr()).toMatch(
      new RegExp(`"sessionId":"${id}".*"droppedBytes":${tail.length},"interruptedTurns":1,"unansweredToolCalls":2`),
    );

    // The repaired history is whole: the session goes on, and is listed with its title and turns.
    expect((await h.client.prompt(id, "third")).text).toBe("You said: third");
    expect((await h.client.list({ cwd })).sessions).toMatchObject([
      { sessionId: id, title: "first", _meta: { "acp-session-host": { turns: 3 } } },
    ]);
    await h.client.close(id);
  });
});

describe("logs that cannot be used are refused with a clear error, and the host keeps serving", () => {
  const cases: Array<{ name: string; write(id: string, cwd: string): string; message: RegExp }> = [
    {
      name: "a corrupt header",
      write: (id) => writeLog(state, id, ['{"format":"acp-session-host/sess'], ""),
      message: /corrupt header/,
    },
    { name: "an empty file", write: (id) => writeLog(state, id, [], ""), message: /empty/ },
    {
      name: "a file that is not ours",
      write: (id) => writeLog(state, id, [{ hello: "world" }, { type: "turn_start" }]),
      message: /not an acp-session-host session log/,
    },
    {
      name: "a header of another session",
      write: (id, cwd) => writeLog(state, id, [header(randomUUID(), cwd)]),
      message: /header names another session/,
    },
    {
      name: "a newer format",
      write: (id, cwd) => writeLog(state, id, [{ ...header(id, cwd), formatVersion: 99 }]),
      message: /newer host \(format version 99/,
    },
    {
      name: "a line damaged before the end",
      write: (id, cwd) =>
        writeLog(state, id, [
          header(id, cwd),
          ...finishedTurn("t1", "first", "answer").slice(0, 2),
          "{not json",
          { type: "turn_end", turnId: "t1", stopReason: "end_turn" },
        ]),
      message: /line 4 is not a valid log entry/,
    },
  ];

  it.each(cases)("$name", async ({ write, message }) => {
    const id = randomUUID();
    const cwd = tempDir();
    const path = write(id, cwd);
    const before = readFileSync(path);
    for (const attempt of [
      () => h.client.load(id, cwd),
      () => h.client.resume(id, cwd),
      () => h.client.load(id, cwd),
    ]) {
      await expect(attempt()).rejects.toMatchObject({
        code: -32603,
        message: expect.stringMatching(message),
        data: expect.objectContaining({ reason: "LOG_UNUSABLE" }),
      });
    }
    await expect(h.client.prompt(id, "hi")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "UNKNOWN_SESSION" }),
    });
    // Refused, never rewritten, and not left locked.
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(exists(paths(state, id).lock)).toBe(false);
    await stillServes();
  });

  it("session/list skips unusable logs and falls back to the header when a sidecar is damaged", async () => {
    const id = randomUUID();
    const cwd = tempDir();
    writeLog(state, id, [header(id, cwd), ...finishedTurn("t1", "first", "answer")]);
    writeFileSync(paths(state, id).sidecar, "{ torn");
    const broken = randomUUID();
    writeLog(state, broken, ["garbage"]);
    const listed = await h.client.list({});
    expect(listed.sessions.map((s) => s.sessionId)).toContain(id);
    expect(listed.sessions.map((s) => s.sessionId)).not.toContain(broken);
    expect(listed.sessions.find((s) => s.sessionId === id)).toMatchObject({
      cwd,
      title: null,
      updatedAt: header(id, cwd).createdAt,
    });
    // Opening the session rewrites its sidecar from the log.
    await h.client.resume(id, cwd);
    expect((await h.client.list({ cwd })).sessions).toMatchObject([
      { sessionId: id, title: "first", _meta: { "acp-session-host": { turns: 1 } } },
    ]);
    await h.client.close(id);
  });
});
