// The contract of the model gateway: one thread per host that makes every OpenAI-compatible request of every session
// (workers/gateway/). The main thread starts it, tells it the models this host was configured with, and hands it one
// MessagePort per session worker; the session worker holds the other end. Over it the worker asks for completions
// and cancels them; the gateway streams the text back (when the session shows it as it arrives) and answers each
// request once, with the assembled response or what went wrong. Both sides check what they receive.
// Why a thread of its own: a session worker is an isolate of its own, and the HTTP client, its streams and the SSE
// parser would be compiled and warmed up again in each of them; in one gateway they stay warm, and its connections to
// the server are kept alive for every session.
import * as z from "zod/mini";
import { ModelConfig } from "./port.js";

const RequestId = z.int().check(z.nonnegative());

/** Main thread → gateway, on the gateway's own port (its worker's parentPort). */
export const GatewayControl = z.discriminatedUnion("type", [
  /** The models requests may name (the host's --model and --models). */
  z.object({ type: z.literal("models"), models: z.array(ModelConfig) }),
  /** A session worker's channel: its requests arrive on `port`. `label` names it in the gateway's log lines. */
  z.object({ type: z.literal("connect"), label: z.string() }),
]);
export type GatewayControl = z.infer<typeof GatewayControl>;

/** Session worker → gateway. */
export const GatewayAsk = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("request"),
    id: RequestId,
    /** A model the gateway was told of, by name. */
    model: z.string().check(z.minLength(1)),
    /** The chat-completions messages and tools (the gateway adds model, stream and usage options). */
    messages: z.array(z.record(z.string(), z.unknown())).check(z.minLength(1)),
    tools: z.optional(z.array(z.record(z.string(), z.unknown()))),
    /** Send text and reasoning deltas as they arrive (the session shows them: --stream-chunks). */
    forward: z.boolean(),
    /** The W3C traceparent of the request's span (a traced turn): sent to the model server as a header. */
    traceparent: z.optional(z.string().check(z.regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/))),
  }),
  z.object({ type: z.literal("cancel"), id: RequestId }),
]);
export type GatewayAsk = z.infer<typeof GatewayAsk>;

const Count = z.int().check(z.nonnegative());

export const AssembledUsage = z.object({
  totalTokens: Count,
  promptTokens: z.nullable(Count),
  completionTokens: z.nullable(Count),
  cachedTokens: z.nullable(Count),
});
export type AssembledUsage = z.infer<typeof AssembledUsage>;

export const AssembledResponse = z.object({
  text: z.string(),
  /** reasoning_content (DeepSeek, vLLM, llama.cpp) or reasoning (Ollama, OpenRouter); empty when none. */
  thought: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), input: z.unknown() })),
  finish: z.enum(["stop", "tool_calls", "length", "content_filter"]),
  usage: z.nullable(AssembledUsage),
});
export type AssembledResponse = z.infer<typeof AssembledResponse>;

/** What went wrong with one attempt, and whether trying again may help. */
export const GatewayFailure = z.object({
  retryable: z.boolean(),
  /** e.g. "HTTP 401: Incorrect API key provided" or "connection failed: connect ECONNREFUSED 127.0.0.1:9". */
  message: z.string(),
  status: z.nullable(z.int()),
  /** The server's own wait before a retry (retry-after-ms, retry-after), capped; null when it gave none. */
  retryAfterMs: z.nullable(Count),
  /** The provider refused the request for its size (context length exceeded). */
  contextOverflow: z.boolean(),
});
export type GatewayFailure = z.infer<typeof GatewayFailure>;

/** Gateway → session worker. */
export const GatewayReply = z.discriminatedUnion("type", [
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
]);
export type GatewayReply = z.infer<typeof GatewayReply>;
