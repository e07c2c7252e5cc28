// A cancelled model stream does not hold the session's next turn, through a real host against a real HTTP server that
// keeps generating for 60 s whatever the client does (as a model server that does not notice a closed connection):
// the next prompt, sent on the `cancelled` answer, is answered while the server is still going through the cancelled
// response, and so are the prompts after it. Ordering, not time: nothing here depends on the machine's speed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromptResult } from "../../src/client/index.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer, type RecordedRequest, type Reply } from "../support/openai-server.js";

const SLOW_PROMPT = "take a minute";

/** The slow prompt gets 600 chunks at 10 a second: a minute of streaming, after the client hangs up too. */
function respond(request: RecordedRequest): Reply {
  if (request.lastUserText.endsWith(SLOW_PROMPT))
    return { text: "slow".repeat(600), chunkChars: 4, tokensPerSecond: 10, streamsAfterClose: true };
  return { text: "back at once" };
}

describe.each([
  { name: "committed messages", flags: [] },
  { name: "--stream-chunks", flags: ["--stream-chunks"] },
])("a cancelled stream does not hold the next turn ($name)", ({ flags }) => {
  let server: OpenAiTestServer;
  let host: TestHost;

  beforeAll(async () => {
    server = await OpenAiTestServer.start({ respond });
    // A cancel grace longer than the test: the turn must end by the cancel itself, not by the loss of its worker.
    host = await startHost([...server.hostArgs(), "--cancel-grace-ms", "600000", ...flags]);
  });
  afterAll(async () => {
    await host?.dispose();
    // Ends the server's minute-long loops.
    await server?.close();
  });

  /** Whether the server has finished going through a request's response. */
  const servedYet = (request: RecordedRequest) => {
    const state = { done: false };
    void request.served.then(() => (state.done = true));
    return state;
  };

  /**
   * Prompts the slow prompt and cancels it once `ready` resolves (it is given the slow request, once the server has
   * it); the next prompt is sent on the cancelled answer.
   */
  async function cancelThenPrompt(
    sessionId: string,
    ready: (slow: Promise<RecordedRequest>) => Promise<unknown>,
  ): Promise<PromptResult> {
    const before = server.requests.length;
    const first = host.client.prompt(sessionId, SLOW_PROMPT);
    const slow = server.waitForRequests(before + 1).then(() => server.requests[before]!);
    await ready(slow);
    await host.client.cancel(sessionId);
    const cancelled = await first;
    expect(cancelled.stopReason).toBe("cancelled");
    return host.client.prompt(sessionId, "now something quick");
  }

  it(
    "cancelled once the request has reached the server: the next prompt is answered while the server still streams",
    { timeout: 60_000 },
    async () => {
      const { sessionId } = await host.client.newSession(tempDir());
      // A turn before it: the cancelled request may go out on a kept-alive connection.
      expect((await host.client.prompt(sessionId, "warm up")).text).toBe("back at once");
      let slow: RecordedRequest | null = null;
      let streaming = { done: false };
      const next = await cancelThenPrompt(sessionId, async (arrived) => {
        slow = await arrived;
        streaming = servedYet(slow);
      });
      expect(next.stopReason).toBe("end_turn");
      expect(next.text).toBe("back at once");
      expect(streaming.done).toBe(false);
      // The host hung up on the cancelled response (and the next request did not wait for the server to end it).
      expect(await slow!.ended).toBe("client-closed");
      const again = await host.client.prompt(sessionId, "and again");
      expect(again.text).toBe("back at once");
      expect(streaming.done).toBe(false);
    },
  );

  it("cancelled as soon as it is sent, or mid-stream: the same", { timeout: 60_000 }, async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    // The worker may not have started the turn yet, the request may or may not be out: either way the next prompt is
    // answered (if the request went out, the server is still going through it).
    const early = await cancelThenPrompt(sessionId, async () => {});
    expect(early.text).toBe("back at once");
    let streaming = { done: false };
    const late = await cancelThenPrompt(sessionId, async (arrived) => {
      const slow = await arrived;
      streaming = servedYet(slow);
      // Mid-stream: the server has sent its headers and some chunks.
      await slow.chunksWritten(5);
    });
    expect(late.text).toBe("back at once");
    expect(streaming.done).toBe(false);
  });
});
