// The contract of the model gateway: one thread per host that makes every OpenAI-compatible request of every session
// (workers/gateway/). The main thread starts it, tells it the models this host was configured with, and hands it one
// MessagePort per session worker; the session worker holds the other end. Over it the worker asks for completions
// and cancels them; the gateway streams the text back (when the session shows it as it arrives) and answers each
// request once, with the assembled response or what went wrong. Both sides check what they receive: the gateway its
// asks (gateway-asks.ts), the worker the replies here.
// Why a thread of its own: a session worker is an isolate of its own, and the HTTP client, its streams and the SSE
// parser would be compiled and warmed up again in each of them; in one gateway they stay warm, and its connections to
// the server are kept alive for every session.
import * as z from "zod/mini";

export const RequestId = z.int().check(z.nonnegative());

const Count = z.int().check(z.nonnegative());

// Each schema below is built on its first parse: a session on the scripted model never has a reply to check, and a
// session's thread builds every schema it holds for itself (docs/performance.md, "Measured choices in the code").
export const AssembledUsage = z.lazy(() =>
  z.object({
    totalTokens: Count,
    promptTokens: z.nullable(Count),
    completionTokens: z.nullable(Count),
    cachedTokens: z.nullable(Count),
  }),
);
export type AssembledUsage = z.infer<typeof AssembledUsage>;

export const AssembledResponse = z.lazy(() =>
  z.object({
    text: z.string(),
    /** reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning (Ollama, OpenRouter); empty when none. */
    thought: z.string(),
    toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })),
    finish: z.enum(["stop", "tool_calls", "length", "content_filter"]),
    usage: z.nullable(AssembledUsage),
  }),
);
export type AssembledResponse = z.infer<typeof AssembledResponse>;

/** What went wrong with one attempt, and whether trying again may help. */
export const GatewayFailure = z.lazy(() =>
  z.object({
    retryable: z.boolean(),
    /** e.g. "HTTP 401: Incorrect API key provided" or "connection failed: connect ECONNREFUSED 127.0.0.1:9". */
    message: z.string(),
    status: z.nullable(z.int()),
    /** The server's own wait before a retry (retry-after-ms, retry-after), capped; null when it gave none. */
    retryAfterMs: z.nullable(Count),
    /** The provider refused the request for its size (context length exceeded). */
    contextOverflow: z.boolean(),
    /** The request waited past --model-queue-timeout-ms for room at its endpoint. */
    providerBusy: z.optional(z.boolean()),
    /** The request was not sent: its session tree's budget is reached or the request would pass it. */
    budgetReached: z.optional(z.boolean()),
  }),
);
export type GatewayFailure = z.infer<typeof GatewayFailure>;

/** Gateway → session worker. */
export const GatewayReply = z.lazy(() =>
  z.discriminatedUnion("type", [
    /** Text and reasoning that arrived (only for a request with forward), in order. */
    z.object({ type: z.literal("delta"), id: RequestId, text: z.string(), thought: z.string() }),
    z.object({
      type: z.literal("done"),
      id: RequestId,
      response: AssembledResponse,
      /** When the stream's first chunk arrived (epoch ms, src/protocol/trace.ts's clock); null when none did. */
      firstChunkAtMs: z.nullable(z.number()),
    }),
    z.object({ type: z.literal("failed"), id: RequestId, failure: GatewayFailure }),
    /** The request waits for room at its provider endpoint: for what, and until when (epoch ms; null: room). */
    z.object({
      type: z.literal("waiting"),
      id: RequestId,
      what: z.enum(["window", "pause", "requests", "tokens"]),
      untilMs: z.nullable(z.number()),
    }),
  ]),
);
export type GatewayReply = z.infer<typeof GatewayReply>;
