// The provider-agnostic model interface the agent loop talks to.
import type { ProviderWaiting } from "./gateway-link.js";
import type { ChatMessage, ToolCallRequest } from "../../src/protocol/log/chat-message.js";
import type { ToolSpec } from "../tools/tool.js";
import type { ModelCalls } from "./model-calls.js";

export type { ChatMessage, ToolCallRequest } from "../../src/protocol/log/chat-message.js";

export type FinishReason = "stop" | "tool_calls" | "length" | "content_filter";

/** One complete model response: the loop commits it as one assistant message. */
export interface ModelResponse {
  blocks: string[];
  toolCalls: ToolCallRequest[];
  finish: FinishReason;
  /** The reasoning the model streamed before its answer (reasoning_content); empty when none. */
  thought?: string;
  usage?: ModelUsage;
}

export interface ModelUsage {
  /** Tokens of the request and its answer. */
  used: number;
  /** The model's context window. */
  size: number;
  promptTokens?: number;
  completionTokens?: number;
  /** Prompt tokens the provider served from its cache. */
  cachedTokens?: number;
}

export interface ModelRequest {
  messages: readonly ChatMessage[];
  tools: readonly ToolSpec[];
  signal: AbortSignal;
  /**
   * Commits the blocks said so far as a message of their own, before the response goes on (a model that says
   * something, then works for a while): journaled and sent at once. The response returned holds only what follows.
   * Resolves once the client has room for more (the model waits for it before it goes on).
   */
  commit(blocks: string[]): Promise<void>;
  /**
   * Streamed text as it arrives (shown only with --stream-chunks; otherwise the committed message is). A promise
   * returned means the client is behind: the model reads no more of its stream until it settles.
   */
  onDelta?: (text: string) => Promise<void> | void;
  /** Streamed reasoning as it arrives, like onDelta. */
  onThought?: (text: string) => Promise<void> | void;
  /** Told while the request waits for room at its provider endpoint (the model gateway's scheduler). */
  onWaiting?: (waiting: ProviderWaiting) => void;
  /** Where each request to the model is told (counted, and a span in a traced turn); absent: nowhere. */
  calls?: ModelCalls | undefined;
}

/** Raised for a prompt the model refuses before the turn starts (bad script, fault injection off). */
export class PromptRejected extends Error {}

const brandOf = (name: string): symbol => Symbol.for(`acp-session-host.${name}`);

/**
 * Raised when the provider fails; the prompt gets a JSON-RPC error with this message. A provider loaded on demand
 * is a bundle of its own with its own copy of these classes: instanceof goes by a brand per class, not by identity.
 */
export class ModelError extends Error {
  static readonly brand: string = "ModelError";

  constructor(message: string) {
    super(message);
    for (let type = new.target; type.brand; type = Object.getPrototypeOf(type) as typeof ModelError) {
      Object.defineProperty(this, brandOf(type.brand), { value: true });
    }
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && brandOf(this.brand) in value;
  }
}

/** The provider refused the request because it does not fit the model's context window. */
export class ContextOverflow extends ModelError {
  static override readonly brand: string = "ContextOverflow";
  /** The context length the provider named in its answer, if it did ("maximum context length is N tokens"). */
  readonly limit: number | null;

  constructor(message: string) {
    super(message);
    const named = /maximum context length is (\d+)/i.exec(message) ?? /n_ctx\D{0,4}(\d+)/i.exec(message);
    this.limit = named ? Number(named[1]) : null;
  }
}

/** The request waited past --model-queue-timeout-ms for room at its provider endpoint (the turn fails PROVIDER_BUSY). */
export class ProviderBusy extends ModelError {
  static override readonly brand: string = "ProviderBusy";
}

/** The session tree's budget is reached, or the request would pass it: it was not sent (the turn ends max_tokens). */
export class BudgetReached extends ModelError {
  static override readonly brand: string = "BudgetReached";
}

export interface Model {
  readonly name: string;
  /** Tokens the model can take in one request; null when the model has no limit worth managing (scripted). */
  readonly contextWindow: number | null;
  /** Checks a user message before its turn starts; throws PromptRejected to refuse it. */
  check(text: string): void;
  complete(request: ModelRequest): Promise<ModelResponse>;
}
