// Context compaction reported the standard way: a client that advertised `session.compaction` sees each automatic
// compaction as compaction_update (in_progress, then completed) with its summary in compaction_summary_chunk, live and
// on session/load; a client that did not sees what it saw before, the notice as a thought. Real hosts against a local
// OpenAI-compatible server with a small context; every message checked against the SDK's schema.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../../workers/context/summary-request.js";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer, type RecordedRequest } from "../support/openai-server.js";

const LIMIT = 3000;
const isSummary = (request: RecordedRequest) => request.lastUserText.includes(SUMMARY_PROMPT);

let server: OpenAiTestServer;
const hosts = hostsPerTest();

beforeAll(async () => {
  server = await OpenAiTestServer.start({
    contextLimit: LIMIT,
    respond: (request) =>
      isSummary(request)
        ? { text: `Summary ${request.index}: the user counted.` }
        : { text: `Echo: ${"noted. ".repeat(12)}` },
  });
});
afterAll(async () => {
  await server?.close();
});

async function start(stateDir: string, compaction: boolean): Promise<TestHost> {
  const args = ["--state-dir", stateDir, ...server.hostArgs("small-model"), "--context-window", String(LIMIT)];
  const host = await startHost(args, "deny", undefined, { compaction });
  hosts.push(host);
  return host;
}

/** Prompts until a turn compacts; returns that turn's updates. */
async function untilCompacted(
  host: TestHost,
  sessionId: string,
  compacted: (updates: SessionUpdate[]) => boolean,
): Promise<SessionUpdate[]> {
  for (let turn = 1; turn < 100; turn++) {
    const result = await host.client.prompt(sessionId, `item ${turn}, to be noted down with care`);
    expect(result.stopReason).toBe("end_turn");
    if (compacted(result.updates)) return result.updates;
  }
  throw new Error("no compaction in 100 turns");
}

const kinds = (updates: SessionUpdate[]) => updates.map((update) => update.sessionUpdate);

describe("compaction updates", () => {
  it("a client with session.compaction: compaction_update in_progress, the summary chunk, compaction_update completed; replayed the same way", async () => {
    const stateDir = tempDir();
    const cwd = tempDir();
    const host = await start(stateDir, true);
    const { sessionId } = await host.client.newSession(cwd);
    const updates = await untilCompacted(host, sessionId, (turn) =>
      turn.some((update) => update.sessionUpdate === "compaction_update"),
    );
    // One compaction or two (a normal one, then a hard one when the request is still too long), then the answer.
    const count = (updates.length - 2) / 4;
    expect([1, 2]).toContain(count);
    const group = ["compaction_update", "usage_update", "compaction_summary_chunk", "compaction_update"];
    expect(kinds(updates)).toEqual([
      ...Array.from({ length: count }, () => group).flat(),
      "agent_message_chunk",
      "usage_update",
    ]);
    const ids: string[] = [];
    for (let at = 0; at < count * 4; at += 4) {
      const [started, , chunk, completed] = updates.slice(at, at + 4) as [
        Extract<SessionUpdate, { sessionUpdate: "compaction_update" }>,
        SessionUpdate,
        Extract<SessionUpdate, { sessionUpdate: "compaction_summary_chunk" }>,
        Extract<SessionUpdate, { sessionUpdate: "compaction_update" }>,
      ];
      expect(started.status).toBe("in_progress");
      expect(chunk.compactionId).toBe(started.compactionId);
      expect(chunk.content).toMatchObject({
        type: "text",
        text: expect.stringMatching(/^Summary \d+: the user counted\.$/),
      });
      expect(completed).toEqual({
        sessionUpdate: "compaction_update",
        compactionId: started.compactionId,
        status: "completed",
        _meta: { eventId: expect.stringMatching(/^\d+\.\d+$/) },
      });
      ids.push(started.compactionId);
    }
    expect(new Set(ids).size).toBe(count);
    expect(updates.some((update) => update.sessionUpdate === "agent_thought_chunk")).toBe(false);

    // On load: each compaction again under its id, its summary first, completed.
    const replayed = await host.client.load(sessionId, cwd);
    const replayedIds = replayed.flatMap((update) =>
      update.sessionUpdate === "compaction_update" ? [[update.compactionId, update.status]] : [],
    );
    expect(replayedIds).toEqual(ids.map((id) => [id, "completed"]));
    expect(
      replayed
        .filter((update) => update.sessionUpdate === "compaction_summary_chunk")
        .map((update) => update.compactionId),
    ).toEqual(ids);
    expect(replayed.some((update) => update.sessionUpdate === "agent_thought_chunk")).toBe(false);
  });

  it("a client without it sees the notice as a thought, as before, live and on load", async () => {
    const stateDir = tempDir();
    const cwd = tempDir();
    const host = await start(stateDir, false);
    const { sessionId } = await host.client.newSession(cwd);
    const updates = await untilCompacted(host, sessionId, (turn) =>
      turn.some((update) => update.sessionUpdate === "agent_thought_chunk"),
    );
    const count = (updates.length - 2) / 2;
    expect([1, 2]).toContain(count);
    expect(kinds(updates)).toEqual([
      ...Array.from({ length: count }, () => ["usage_update", "agent_thought_chunk"]).flat(),
      "agent_message_chunk",
      "usage_update",
    ]);
    const notices = updates.flatMap((update) =>
      update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text" ? [update.content.text] : [],
    );
    for (const notice of notices) expect(notice).toMatch(/^conversation compacted/);
    const replayed = await host.client.load(sessionId, cwd);
    expect(kinds(replayed).filter((kind) => kind.startsWith("compaction"))).toEqual([]);
    expect(
      replayed.flatMap((update) =>
        update.sessionUpdate === "agent_thought_chunk" && update.content.type === "text" ? [update.content.text] : [],
      ),
    ).toEqual(notices);
  });
});
