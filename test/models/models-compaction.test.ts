// Context management through a real host against a server with a small context limit: a long session never fails a
// prompt, compacts (shown as a thought, journaled), replays everything the client saw, and a restored session's next
// request carries exactly the messages it would have carried before the restart. A provider whose limit is smaller
// than the host believes is met by a harder compaction; what cannot fit fails the turn with the sizes, and the next
// prompt works.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../../workers/context/summary-request.js";
import { logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer, requestTokens, type RecordedRequest, type Reply } from "../support/openai-server.js";

// Room for the tools every request offers (update_plan and spawn_agent added about 400 tokens to them).
const LIMIT = 3400;
const isSummary = (request: RecordedRequest) => request.lastUserText.includes(SUMMARY_PROMPT);

/** Echoes with some bulk, so that a few dozen turns pass the limit; summaries are short. */
function respond(request: RecordedRequest): Reply {
  if (isSummary(request))
    return { text: `Summary ${request.index}: the user has been counting; the assistant echoed each number.` };
  return { text: `Echo of "${request.lastUserText.slice(-60)}": ${"noted. ".repeat(12)}` };
}

describe("context compaction", () => {
  let server: OpenAiTestServer;
  const hosts: TestHost[] = [];
  const start = async (stateDir: string, ...args: string[]) => {
    const host = await startHost([
      "--state-dir",
      stateDir,
      ...server.hostArgs("small-model"),
      "--default-mode",
      "auto",
      ...args,
    ]);
    hosts.push(host);
    return host;
  };

  beforeAll(async () => {
    server = await OpenAiTestServer.start({ contextLimit: LIMIT, contextErrorStyle: "deepseek", respond });
  });
  afterAll(async () => {
    for (const host of hosts) await host.dispose();
    await server?.close();
  });

  it(
    "300 turns against a small context never fail a prompt; compactions are shown, journaled and replayed",
    { timeout: 600_000 },
    async () => {
      const stateDir = tempDir();
      const cwd = tempDir();
      const host = await start(stateDir, "--context-window", String(LIMIT));
      const { sessionId } = await host.client.newSession(cwd);
      const before = server.requests.length;
      const shown: string[] = [];
      for (let turn = 1; turn <= 300; turn++) {
        const result = await host.client.prompt(sessionId, `number ${turn}, please note it down somewhere safe`);
        expect(result.stopReason).toBe("end_turn");
        expect(result.text).toBe(
          `Echo of "number ${turn}, please note it down somewhere safe": ${"noted. ".repeat(12)}`,
        );
        shown.push(...transcript(result.updates));
      }
      const requests = server.requests.slice(before);
      // No request passed the limit: the host compacted before it would have.
      expect(requests.filter((request) => requestTokens(request.body) > LIMIT)).toEqual([]);
      const summaries = requests.filter(isSummary);
      const notices = shown.filter((line) => line.startsWith("thought: conversation compacted: "));
      expect(summaries.length).toBeGreaterThanOrEqual(10);
      expect(notices).toHaveLength(summaries.length);
      expect(notices[0]).toMatch(
        /^thought: conversation compacted: \d+ earlier turns \(about \d+ tokens\) → a summary of about \d+ tokens, at most half of what it replaces; the latest turns, this one among them, are kept word for word \(the request: about \d+ → \d+ tokens\)$/,
      );
      expect(requests).toHaveLength(300 + summaries.length);
      expect(logEntries(stateDir, sessionId).filter((entry) => entry.type === "compaction")).toHaveLength(
        summaries.length,
      );

      // The latest summary ends the system message the model sees; the model's summary replaced the older turns.
      const last = requests.at(-1)!.body.messages;
      expect(last[0]!.content).toMatch(
        /\n\nSummary of the earlier conversation \(compacted to fit the context window\):\n\nSummary \d+:/,
      );
      expect(JSON.stringify(last)).not.toContain("number 1,");

      // session/load replays every message the client saw, compactions included, in order.
      await host.dispose();
      const restarted = await start(stateDir, "--context-window", String(LIMIT));
      const replayed = transcript(await restarted.client.load(sessionId, cwd));
      expect(replayed.filter((line) => !line.startsWith("user: "))).toEqual(shown);
      expect(replayed.filter((line) => line.startsWith("user: "))).toHaveLength(300);
    },
  );

  it(
    "a restored session's next request carries the same messages as it would have before the restart",
    { timeout: 300_000 },
    async () => {
      const stateDir = tempDir();
      const cwd = tempDir();
      const host = await start(stateDir, "--context-window", String(LIMIT));
      const { sessionId } = await host.client.newSession(cwd);
      // Until a compaction, then one more turn.
      let compacted = false;
      let turn = 0;
      while (!compacted) {
        turn++;
        const result = await host.client.prompt(sessionId, `item ${turn}`);
        compacted = result.updates.some((u) => u.sessionUpdate === "agent_thought_chunk");
        // The summary request's usage is reported too, before the notice; the answer's after it.
        if (compacted)
          expect(result.updates.map((u) => u.sessionUpdate)).toEqual([
            "usage_update",
            "agent_thought_chunk",
            "agent_message_chunk",
            "usage_update",
          ]);
        expect(turn).toBeLessThan(100);
      }
      const lastTurn = await host.client.prompt(sessionId, "one more");
      const before = server.requests.at(-1)!.body.messages;
      await host.dispose();

      const restarted = await start(stateDir, "--context-window", String(LIMIT));
      await restarted.client.resume(sessionId, cwd);
      const count = server.requests.length;
      await restarted.client.prompt(sessionId, "after the restart");
      expect(server.requests.length).toBe(count + 1);
      expect(server.requests.at(-1)!.body.messages).toEqual([
        ...before,
        { role: "assistant", content: lastTurn.text },
        { role: "user", content: "after the restart" },
      ]);
    },
  );

  it(
    "a cancelled turn's calls that never ran do not shift what a restored session rebuilds after a compaction",
    { timeout: 300_000 },
    async () => {
      const plain = (n: number) => `entry ${n}`;
      const compactedIn = (updates: readonly { sessionUpdate: string }[]) =>
        updates.some((u) => u.sessionUpdate === "agent_thought_chunk");
      // Where the first compaction falls for plain turns, so that the cancelled turn is among the turns it keeps.
      const probe = await start(tempDir(), "--context-window", String(LIMIT));
      const { sessionId: probeId } = await probe.client.newSession(tempDir());
      let compactsAt = 0;
      for (let n = 1; compactsAt === 0; n++) {
        if (compactedIn((await probe.client.prompt(probeId, plain(n))).updates)) compactsAt = n;
        expect(n).toBeLessThan(100);
      }
      await probe.dispose();

      const stateDir = tempDir();
      const cwd = tempDir();
      const host = await start(stateDir, "--context-window", String(LIMIT), "--cancel-grace-ms", "60000");
      const { sessionId } = await host.client.newSession(cwd);
      for (let n = 1; n <= compactsAt - 3; n++) await host.client.prompt(sessionId, plain(n));
      // Cancelled during the first of two tool calls: the second never runs.
      server.enqueue({
        toolCalls: [
          { id: "call_sleep", name: "bash", arguments: { command: "sleep 30" } },
          { id: "call_never", name: "list_dir", arguments: { path: "." } },
        ],
      });
      let cancelled = false;
      const stopped = await host.client.prompt(sessionId, "start something slow", {
        onUpdate: (update) => {
          if (cancelled || update.sessionUpdate !== "tool_call_update" || update.status !== "in_progress") return;
          cancelled = true;
          void host.client.cancel(sessionId);
        },
      });
      expect(stopped.stopReason).toBe("cancelled");
      let compacted = false;
      for (let n = compactsAt - 2; !compacted; n++) {
        compacted = compactedIn((await host.client.prompt(sessionId, plain(n))).updates);
        expect(n).toBeLessThan(compactsAt + 5);
      }
      const lastTurn = await host.client.prompt(sessionId, "one more");
      const before = server.requests.at(-1)!.body.messages;
      // The compaction kept the cancelled turn.
      expect(before.some((message) => message.tool_call_id === "call_never")).toBe(true);
      await host.dispose();

      const restarted = await start(stateDir, "--context-window", String(LIMIT));
      await restarted.client.resume(sessionId, cwd);
      await restarted.client.prompt(sessionId, "after the restart");
      expect(server.requests.at(-1)!.body.messages).toEqual([
        ...before,
        { role: "assistant", content: lastTurn.text },
        { role: "user", content: "after the restart" },
      ]);
    },
  );

  it(
    "a provider limit below the configured window: it answers 400, the host compacts harder and retries",
    { timeout: 300_000 },
    async () => {
      const host = await start(tempDir(), "--context-window", "100000");
      const { sessionId } = await host.client.newSession(tempDir());
      const before = server.requests.length;
      let turn = 0;
      while (!server.requests.slice(before).some((request) => requestTokens(request.body) > LIMIT)) {
        turn++;
        const result = await host.client.prompt(sessionId, `step ${turn}`);
        expect(result.stopReason).toBe("end_turn");
        // The model answered the prompt, not a summary.
        expect(result.text).toBe(`Echo of "step ${turn}": ${"noted. ".repeat(12)}`);
        expect(turn).toBeLessThan(100);
      }
      const requests = server.requests.slice(before);
      const refused = requests.findIndex((request) => requestTokens(request.body) > LIMIT);
      // The refused request, then the summary of the older turns, then the same prompt again, compacted.
      expect(refused).toBe(requests.length - 3);
      expect(isSummary(requests[refused + 1]!)).toBe(true);
      // The retried request still ends with the prompt itself (the turn in flight is never summarised).
      expect(requests.at(-1)!.body.messages.at(-1)).toEqual({ role: "user", content: `step ${turn}` });
      expect(requestTokens(requests.at(-1)!.body)).toBeLessThanOrEqual(LIMIT);
      // The limit the provider named is the window from now on: the next turns compact before they would be refused.
      for (let more = 1; more <= 40; more++)
        expect((await host.client.prompt(sessionId, `later ${more}`)).stopReason).toBe("end_turn");
      expect(
        server.requests.slice(before + requests.length).filter((request) => requestTokens(request.body) > LIMIT),
      ).toEqual([]);
    },
  );

  it("what cannot fit fails the turn with the sizes; the next prompt works", { timeout: 300_000 }, async () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, "big.txt"), "0123456789abcdef\n".repeat(2000));
    const host = await start(tempDir(), "--context-window", String(LIMIT));
    const { sessionId } = await host.client.newSession(cwd);
    server.enqueue({ toolCalls: [{ id: "call_big", name: "read_file", arguments: { path: "big.txt" } }] });
    const failed = host.client.prompt(sessionId, "read the big file");
    await expect(failed).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      message: expect.stringMatching(
        new RegExp(
          `^model "small-model" at .*: HTTP 400: This model's maximum context length is ${LIMIT} tokens\\. However, you requested \\d+ tokens .* — the conversation does not fit even after compacting it: the request is about \\d+ tokens \\(estimated\\), the context window is ${LIMIT} tokens$`,
        ),
      ),
    });
    const next = await host.client.prompt(sessionId, "never mind, just say hi");
    expect(next.stopReason).toBe("end_turn");
    expect(next.text).toContain("never mind, just say hi");
  });
});
