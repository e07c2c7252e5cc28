// A model behind any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp server),
// as the session worker sees it: it shapes the request (system prompt, messages, tools) and the host's model gateway
// (workers/gateway/) makes it, streams it and assembles the answer; the loop commits each one whole. Retries are decided
// here: bounded by ModelConfig.retries, only for 429, 5xx and broken connections (mid-stream too: nothing of an answer
// is shown before it is complete), and the wait between them ends at once when the turn is cancelled.
import type { ModelConfig } from "../../src/protocol/port.js";
import type { AssembledResponse, AssembledUsage, GatewayFailure } from "../../src/protocol/model-gateway.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import { contextWindow } from "./context-windows.js";
import { GatewayFailed, type GatewayLink } from "./gateway-link.js";
import {
  BudgetReached,
  ContextOverflow,
  ModelError,
  ProviderBusy,
  type Model,
  type ModelRequest,
  type ModelResponse,
  type ModelUsage,
} from "./model.js";
import { toOpenAiMessages, toOpenAiTools, type ReasoningHistory } from "./openai-messages.js";
import { retryDelayMs, waitToRetry } from "./retry.js";

export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

export type ModelLog = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  data?: Record<string, unknown>,
) => void;

export interface OpenAiCompatibleOptions {
  /** The session's working directory, named in the system prompt. */
  cwd?: string;
  /** The session's log (the host's stderr): retries are reported there. */
  log?: ModelLog;
  /** The client's system prompt: appended to the host's instructions, or (override) instead of them. */
  systemPrompt?: SystemPromptSetting | null;
}

export class OpenAiCompatibleModel implements Model {
  readonly name: string;
  readonly #baseUrl: string;
  readonly #apiKeyEnv: string;
  readonly #keyMissing: boolean;
  readonly #retries: number;
  readonly contextWindow: number;
  readonly #reasoning: ReasoningHistory;
  readonly #system: string;
  readonly #log: ModelLog;
  readonly #gateway: GatewayLink;

  constructor(config: ModelConfig, gateway: GatewayLink, options: OpenAiCompatibleOptions = {}) {
    this.name = config.model;
    this.#baseUrl = config.baseUrl ?? "";
    this.#apiKeyEnv = config.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
    // Only whether it is set, to explain a 401: the key itself is read by the gateway.
    this.#keyMissing = !process.env[this.#apiKeyEnv];
    this.#retries = config.retries;
    this.contextWindow = contextWindow(config.model, config.contextWindow);
    this.#reasoning = config.reasoningHistory ?? "none";
    this.#system = systemMessage(systemPrompt(options.cwd), options.systemPrompt ?? null);
    this.#log = options.log ?? (() => {});
    this.#gateway = gateway;
  }

  check(_text: string): void {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const { signal } = request;
    if (!this.#baseUrl) throw new ModelError(`model "${this.name}": no base URL configured`);
    const messages = toOpenAiMessages(this.#system, request.messages, this.#reasoning) as unknown as Array<
      Record<string, unknown>
    >;
    const tools =
      request.tools.length > 0
        ? (toOpenAiTools(request.tools) as unknown as Array<Record<string, unknown>>)
        : undefined;
    // A retried answer streams again from its start: only what goes beyond what an earlier attempt streamed is passed on.
    const shown = { text: 0, thought: 0 };
    const streamed = request.onDelta || request.onThought;
    // Deltas are handed on in order, each once the one before has found room in the client's output window.
    let handedOn: Promise<void> = Promise.resolve();
    let retryReason: string | undefined;
    for (let retry = 0; ; retry++) {
      const call = request.calls?.begin({
        model: this.name,
        provider: "openai",
        baseUrl: this.#baseUrl,
        retry,
        ...(retryReason ? { retryReason } : {}),
      });
      const seen = { text: 0, thought: 0 };
      const pass = (key: "text" | "thought", added: string, to: ModelRequest["onDelta"]) => {
        seen[key] += added.length;
        const fresh = added.slice(Math.max(0, added.length - (seen[key] - shown[key])));
        if (fresh.length === 0 || !to) return;
        shown[key] += fresh.length;
        handedOn = handedOn.then(() => to(fresh));
      };
      try {
        const traceparent = call?.traceparent;
        const { response: answer, firstChunkAtMs } = await this.#gateway.request(
          { model: this.name, messages, ...(tools ? { tools } : {}), ...(traceparent ? { traceparent } : {}) },
          signal,
          streamed
            ? (text, thought) => {
                pass("thought", thought, request.onThought);
                pass("text", text, request.onDelta);
              }
            : null,
          request.onWaiting ?? null,
        );
        await handedOn;
        const response = this.#response(answer);
        call?.done({ finish: response.finish, usage: response.usage, text: answer.text, firstChunkAtMs });
        return response;
      } catch (error) {
        if (signal.aborted) call?.failed("cancelled", "the turn was cancelled");
        signal.throwIfAborted();
        if (!(error instanceof GatewayFailed)) {
          call?.failed("internal", (error as Error).message ?? String(error));
          throw error;
        }
        const failure = error.failure;
        // Not the provider's own words: a 401's can quote part of the key ("Incorrect API key provided: sk-…").
        const errorType = failure.contextOverflow
          ? "context_overflow"
          : failure.status !== null
            ? String(failure.status)
            : "connection";
        retryReason = failure.status !== null ? `HTTP ${failure.status}` : errorType;
        call?.failed(errorType, retryReason);
        if (failure.contextOverflow) throw new ContextOverflow(this.#describe(failure, retry + 1));
        if (failure.budgetReached) throw new BudgetReached(failure.message);
        if (failure.providerBusy) throw new ProviderBusy(this.#describe(failure, retry + 1));
        if (!failure.retryable || retry >= this.#retries) throw new ModelError(this.#describe(failure, retry + 1));
        const delayMs = retryDelayMs(retry, failure.retryAfterMs);
        this.#log("warn", "model request failed; retrying", {
          model: this.name,
          attempt: retry + 1,
          delayMs,
          error: failure.message,
        });
        await waitToRetry(delayMs, signal);
      }
    }
  }

  #response(answer: AssembledResponse): ModelResponse {
    return {
      blocks: answer.text.length > 0 ? [answer.text] : [],
      toolCalls: answer.toolCalls,
      finish: answer.finish,
      ...(answer.thought.length > 0 ? { thought: answer.thought } : {}),
      ...(answer.usage ? { usage: this.#usage(answer.usage) } : {}),
    };
  }

  #usage(usage: AssembledUsage): ModelUsage {
    return {
      used: usage.totalTokens,
      size: this.contextWindow,
      ...(usage.promptTokens !== null ? { promptTokens: usage.promptTokens } : {}),
      ...(usage.completionTokens !== null ? { completionTokens: usage.completionTokens } : {}),
      ...(usage.cachedTokens !== null ? { cachedTokens: usage.cachedTokens } : {}),
    };
  }

  #describe(failure: GatewayFailure, attempts: number): string {
    const keyNote =
      this.#keyMissing && (failure.status === 401 || failure.status === 403)
        ? ` (no API key sent: the environment variable ${this.#apiKeyEnv} is not set)`
        : "";
    const attemptsNote = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
    return `model "${this.name}" at ${this.#baseUrl}: ${failure.message}${keyNote}${attemptsNote}`;
  }
}

/** The system message a request opens with: the host's instructions, the client's added to them or in their place. */
function systemMessage(own: string, client: SystemPromptSetting | null): string {
  if (!client) return own;
  return client.mode === "override" ? client.text : `${own}\n\n${client.text}`;
}

function systemPrompt(cwd: string | undefined): string {
  const where = cwd ? `in the directory ${cwd}` : "in the user's working directory";
  return [
    `You are a coding agent working ${where}.`,
    "Use the tools you are offered to look at and change files and to run commands; relative paths are relative to that directory.",
    "When the task is done, answer briefly with what you did or found.",
  ].join(" ");
}
