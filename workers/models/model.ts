// The provider-agnostic model interface the agent loop talks to.
import type { ToolSpec } from "../tools/tool.js";

export interface ToolCallRequest {
  id: string;
  name: string;
  input: unknown;
}

export type ChatMessage =
  | { role: "user"; text: string }
  | { role: "assistant"; blocks: string[]; toolCalls: ToolCallRequest[] }
  | { role: "tool"; toolCallId: string; name: string; result: string; isError: boolean };

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter";

/** One complete model response: the loop commits it as one assistant message. */
export interface ModelResponse {
  blocks: string[];
  toolCalls: ToolCallRequest[];
  finish: FinishReason;
  usage?: { used: number; size: number };
}

export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
  /**
   * Commits the blocks said so far as a message of their own, before the response goes on (a model that says
   * something, then works for a while): journaled and sent at once. The response returned holds only what follows.
   */
  commit(blocks: string[]): void;
  /** Streamed text as it arrives; nothing is shown to the client before the message is committed. */
  onDelta?: (text: string) => void;
}

/** Raised for a prompt the model refuses before the turn starts (bad script, fault injection off). */
export class PromptRejected extends Error {}

const MODEL_ERROR = Symbol.for("acp-session-host.ModelError");

/**
 * Raised when the provider fails; the prompt gets a JSON-RPC error with this message. A provider loaded on demand
 * (its own bundle, with its own copy of this class) raises errors that are still instances of this one.
 */
export class ModelError extends Error {
  readonly [MODEL_ERROR] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && MODEL_ERROR in value;
  }
}

export interface Model {
  readonly name: string;
  /** Checks a user message before its turn starts; throws PromptRejected to refuse it. */
  check(text: string): void;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
