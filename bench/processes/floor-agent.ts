// The floor: a bare ACP agent built with the same SDK and the same scripted model, everything in one process and on
// one thread: "ACP over stdio, no isolation". The benchmark runs it as a subprocess, exactly as it runs the host.
import { randomUUID } from "node:crypto";
import { Readable, Writable } from "node:stream";
import { agent, ndJsonStream, PROTOCOL_VERSION, RequestError, type StopReason } from "@agentclientprotocol/sdk";
import type { ChatMessage } from "../../workers/models/model.js";
import { ScriptedModel } from "../../workers/models/scripted.js";

const MAX_TURN_REQUESTS = 50;
const model = new ScriptedModel({ allowFaultInjection: false });
const sessions = new Map<string, { history: ChatMessage[]; turn: AbortController | null }>();

const app = agent({ name: "bench-floor-agent" })
  .onRequest("initialize", () => ({
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "bench-floor-agent", version: "0.0.0" },
    authMethods: [],
  }))
  .onRequest("session/new", () => {
    const sessionId = randomUUID();
    sessions.set(sessionId, { history: [], turn: null });
    return { sessionId };
  })
  .onNotification("session/cancel", ({ params }) => sessions.get(params.sessionId)?.turn?.abort())
  .onRequest("session/prompt", async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw RequestError.invalidParams({ sessionId: params.sessionId }, "unknown session");
    if (session.turn) throw RequestError.invalidRequest(undefined, "a prompt is already in flight");
    const text = params.prompt.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
    model.check(text);
    const turn = new AbortController();
    session.turn = turn;
    session.history.push({ role: "user", text });
    try {
      let stopReason: StopReason = "max_turn_requests";
      for (let request = 0; request < MAX_TURN_REQUESTS; request++) {
        const response = await model.complete({
          messages: session.history,
          tools: [],
          signal: turn.signal,
          commit: async (blocks) => void session.history.push({ role: "assistant", blocks, toolCalls: [] }),
        });
        session.history.push({ role: "assistant", blocks: response.blocks, toolCalls: response.toolCalls });
        for (const block of response.blocks) {
          if (block.length > 0) {
            await client.notify("session/update", {
              sessionId: params.sessionId,
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: block } },
            });
          }
        }
        if (response.toolCalls.length === 0) {
          stopReason = "end_turn";
          break;
        }
        for (const call of response.toolCalls) {
          session.history.push({
            role: "tool",
            toolCallId: call.id,
            name: call.name,
            result: "the floor agent has no tools",
            isError: true,
          });
        }
      }
      return { stopReason: turn.signal.aborted ? "cancelled" : stopReason };
    } catch (error) {
      if (turn.signal.aborted) return { stopReason: "cancelled" as const };
      throw error;
    } finally {
      session.turn = null;
    }
  });

const connection = app.connect(
  ndJsonStream(
    Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  ),
);
void connection.closed.then(() => process.exit(0));
