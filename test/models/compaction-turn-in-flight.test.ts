// A compaction never summarises the turn in flight, through a real host against a real HTTP server: when the provider
// refuses a prompt's request as too long (OpenAI's context_length_exceeded), the host compacts hard and retries, and
// the retried request still ends with the user's prompt, word for word; the model answers that prompt, not the
// summary. The summary takes at most half of what it replaces, even when the model writes a long one.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUMMARY_PROMPT } from "../../workers/context/summary-request.js";
import { logEntries, transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer, requestTokens, type RecordedRequest, type Reply } from "../support/openai-server.js";

/** The server's limit: below the 80% of 4000 the host starts with, so the host only learns it from the refusal. */
const SERVER_LIMIT = 2000;
const isSummary = (request: RecordedRequest) => request.lastUserText.includes(SUMMARY_PROMPT);

/** Prompts of a session whose summaries are wordy carry this. */
const WORDY = "(wordy)";

/** Answers echo the prompt with some bulk. Summaries are short, or far longer than the host lets them be (WORDY). */
function respond(request: RecordedRequest): Reply {
  if (isSummary(request)) {
    if (!JSON.stringify(request.body.messages).includes(WORDY))
      return { text: "SUMMARY-START the user has been taking numbered steps; each was echoed. SUMMARY-END" };
    return { text: `SUMMARY-START ${"the user has been taking steps; each was echoed. ".repeat(300)}SUMMARY-END` };
  }
  return { text: `Echo of "${request.lastUserText}": ${"noted. ".repeat(10)}` };
}

describe("a compaction keeps the turn in flight", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  let stateDir: string;

  beforeAll(async () => {
    server = await OpenAiTestServer.start({ contextLimit: SERVER_LIMIT, contextErrorStyle: "openai", respond });
    stateDir = tempDir();
    host = await startHost([
      "--state-dir",
      stateDir,
      ...server.hostArgs("small-model"),
      "--context-window",
      "4000",
      "--compact-at",
      "80",
    ]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  /** Prompts a new session until one prompt's first request is refused; returns that turn's requests and answer. */
  async function promptUntilRefused(label: string) {
    const { sessionId } = await host.client.newSession(tempDir());
    for (let turn = 1; turn < 100; turn++) {
      const before = server.requests.length;
      const prompt = `step ${turn}: please remember this one${label ? ` ${label}` : ""}`;
      const result = await host.client.prompt(sessionId, prompt);
      expect(result.stopReason).toBe("end_turn");
      const requests = server.requests.slice(before);
      if (!requests.some((request) => requestTokens(request.body) > SERVER_LIMIT)) continue;
      const notice = transcript(result.updates).find((line) => line.startsWith("thought: conversation compacted"));
      return { sessionId, turn, prompt, result, requests, notice };
    }
    throw new Error("no request was refused");
  }

  /** The figures of a hard compaction's notice: turns summarised, their tokens, the summary's. */
  function hardNotice(notice: string | undefined): { turns: number; replaced: number; summary: number } {
    const sizes =
      /^thought: conversation compacted hard, the request being still too long: all (\d+) turns before this one \(about (\d+) tokens\) → a summary of about (\d+) tokens, at most half of what it replaces; this turn is kept word for word \(the request: about \d+ → \d+ tokens\)$/.exec(
        notice ?? "",
      );
    expect(sizes, notice).not.toBeNull();
    const [, turns, replaced, summary] = sizes!.map(Number);
    return { turns: turns!, replaced: replaced!, summary: summary! };
  }

  it(
    "a prompt refused as too long is retried after a hard compaction with the prompt last, verbatim, and answered",
    { timeout: 120_000 },
    async () => {
      const { sessionId, turn, prompt, result, requests, notice } = await promptUntilRefused("");
      // The refused request, the summary of every turn before this one, then the same prompt again.
      expect(requests).toHaveLength(3);
      const [refused, summary, retried] = requests;
      expect(requestTokens(refused!.body)).toBeGreaterThan(SERVER_LIMIT);
      expect(refused!.body.messages.at(-1)).toEqual({ role: "user", content: prompt });
      expect(isSummary(summary!)).toBe(true);
      expect(requestTokens(retried!.body)).toBeLessThanOrEqual(SERVER_LIMIT);
      // The retried request ends with the prompt, a message of its own, word for word; the client's answer is the
      // model's answer to it.
      const messages = retried!.body.messages;
      expect(messages.at(-1)).toEqual({ role: "user", content: prompt });
      expect(result.text).toBe(`Echo of "${prompt}": ${"noted. ".repeat(10)}`);
      // Hard: nothing of the earlier turns is left but the summary, at the end of the system message.
      expect(messages.map((message) => message.role)).toEqual(["system", "user"]);
      expect(messages[0]!.content).toMatch(
        /\n\nSummary of the earlier conversation \(compacted to fit the context window\):\n\nSUMMARY-START /,
      );
      const figures = hardNotice(notice);
      expect(figures.turns).toBe(turn - 1);
      expect(figures.summary * 2).toBeLessThanOrEqual(figures.replaced);
      expect(logEntries(stateDir, sessionId).findLast((entry) => entry.type === "compaction")).toMatchObject({
        level: "hard",
        kept: 1,
        turns: turn - 1,
      });

      // The next prompt goes on from there.
      const next = await host.client.prompt(sessionId, "and one more");
      expect(next.text).toBe(`Echo of "and one more": ${"noted. ".repeat(10)}`);
      expect(server.requests.at(-1)!.body.messages.slice(-3)).toEqual([
        { role: "user", content: prompt },
        { role: "assistant", content: result.text },
        { role: "user", content: "and one more" },
      ]);
    },
  );

  it("a summary longer than half of what it replaces is clipped to that half", { timeout: 120_000 }, async () => {
    const { prompt, result, requests, notice } = await promptUntilRefused(WORDY);
    expect(requests).toHaveLength(3);
    const retried = requests[2]!.body.messages;
    expect(retried[0]!.content).toContain("characters left out");
    expect(retried[0]!.content).toMatch(/SUMMARY-END$/);
    expect(retried.at(-1)).toEqual({ role: "user", content: prompt });
    expect(result.text).toBe(`Echo of "${prompt}": ${"noted. ".repeat(10)}`);
    const figures = hardNotice(notice);
    expect(figures.summary * 2).toBeLessThanOrEqual(figures.replaced);
  });
});
