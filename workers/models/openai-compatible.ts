// A model behind any OpenAI-compatible chat-completions endpoint (OpenAI, DeepSeek, vLLM, Ollama, llama.cpp server),
// called with the official `openai` client from inside the session worker. Answers are streamed and assembled here;
// the loop commits each one whole. Retries are ours, not the client's: bounded by ModelConfig.retries, only for 429,
// 5xx and broken connections (mid-stream too: nothing of an answer is shown before it is complete), and the wait
// between them ends at once when the turn is cancelled. A cancel ends the request's wait at once, whatever the
// response does after it (until-aborted.ts): the cancelled response's socket, body and iterator are aborted and left
// to wind down on their own, so the session's next turn never waits on them.
import { OpenAI, type ClientOptions } from "openai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";
import type { ModelConfig } from "../../src/protocol/port.js";
import type { SystemPromptSetting } from "../../src/protocol/system-prompt.js";
import { contextWindow } from "./context-windows.js";
import { ContextOverflow, ModelError, type Model, type ModelRequest, type ModelResponse, type ModelUsage } from "./model.js";
import { classify, fetchNormalizingErrors, isContextOverflow, type Failure } from "./openai-errors.js";
import { toOpenAiMessages, toOpenAiTools, type ReasoningHistory } from "./openai-messages.js";
import { ChunkAssembler, type AssembledUsage } from "./openai-stream.js";
import { IdleWatch } from "./idle-watch.js";
import { retryDelayMs, waitToRetry } from "./retry.js";
import { untilAborted } from "./until-aborted.js";

export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

export type ModelLog = (level: "debug" | "info" | "warn" | "error", msg: string, data?: Record<string, unknown>) => void;

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
  readonly #idleTimeoutMs: number;
  readonly contextWindow: number;
  readonly #reasoning: ReasoningHistory;
  readonly #system: string;
  readonly #log: ModelLog;
  readonly #client: OpenAI;

  constructor(config: ModelConfig, options: OpenAiCompatibleOptions = {}) {
    this.name = config.model;
    this.#baseUrl = config.baseUrl ?? "";
    this.#apiKeyEnv = config.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
    this.#retries = config.retries;
    this.#idleTimeoutMs = config.idleTimeoutMs ?? 0;
    this.contextWindow = contextWindow(config.model, config.contextWindow);
    this.#reasoning = config.reasoningHistory ?? "none";
    this.#system = systemMessage(systemPrompt(options.cwd), options.systemPrompt ?? null);
    this.#log = options.log ?? (() => {});
    const key = process.env[this.#apiKeyEnv];
    this.#keyMissing = !key;
    this.#client = new OpenAI({
      baseURL: this.#baseUrl,
      // Without a key (local servers need none) no Authorization header is sent at all.
      apiKey: key || "unset",
      ...(key ? {} : { defaultHeaders: { Authorization: null } }),
      // Explicit, so the client does not pick up OPENAI_* variables meant for another endpoint.
      organization: null,
      project: null,
      adminAPIKey: null,
      maxRetries: 0,
      fetch: fetchNormalizingErrors,
      // The client's own log goes to the session's log: a worker's console.log would land on the host's stdout,
      // which carries protocol frames only. The level is fixed so OPENAI_LOG cannot raise it.
      logLevel: "warn",
      logger: clientLogger(this.#log),
    });
    warmUpFetch();
  }

  check(_text: string): void {}

  async complete(request: ModelRequest): Promise<ModelResponse> {
    const { signal } = request;
    if (!this.#baseUrl) throw new ModelError(`model "${this.name}": no base URL configured`);
    const params: ChatCompletionCreateParamsStreaming = {
      model: this.name,
      messages: toOpenAiMessages(this.#system, request.messages, this.#reasoning),
      stream: true,
      stream_options: { include_usage: true },
      ...(request.tools.length > 0 ? { tools: toOpenAiTools(request.tools) } : {}),
    };
    // A retried answer streams again from its start: only what goes beyond what an earlier attempt streamed is passed on.
    const shown = { text: 0, thought: 0 };
    for (let retry = 0; ; retry++) {
      try {
        return await this.#attempt(params, request, shown);
      } catch (error) {
        signal.throwIfAborted();
        const failure = classify(error);
        if (isContextOverflow(failure)) throw new ContextOverflow(this.#describe(failure, retry + 1));
        if (!failure.retryable || retry >= this.#retries) throw new ModelError(this.#describe(failure, retry + 1));
        const delayMs = retryDelayMs(retry, failure.headers);
        this.#log("warn", "model request failed; retrying", { model: this.name, attempt: retry + 1, delayMs, error: failure.message });
        await waitToRetry(delayMs, signal);
      }
    }
  }

  async #attempt(params: ChatCompletionCreateParamsStreaming, request: ModelRequest, shown: { text: number; thought: number }): Promise<ModelResponse> {
    const watch = new IdleWatch(request.signal, this.#idleTimeoutMs);
    try {
      return await this.#stream(params, request, shown, watch);
    } catch (error) {
      watch.check();
      throw error;
    } finally {
      watch.dispose();
    }
  }

  async #stream(params: ChatCompletionCreateParamsStreaming, request: ModelRequest, shown: { text: number; thought: number }, watch: IdleWatch): Promise<ModelResponse> {
    const { signal } = request;
    // watch.signal aborts on the turn's cancel and on a quiet stream: the openai client aborts the HTTP request, and
    // this attempt stops waiting for it there and then (the reason tells #attempt which of the two it was).
    const stream = await untilAborted(this.#client.chat.completions.create(params, { signal: watch.signal }), watch.signal);
    watch.touch();
    const assembler = new ChunkAssembler();
    const seen = { text: 0, thought: 0 };
    const pass = (key: "text" | "thought", added: string, to: ((text: string) => void) | undefined) => {
      seen[key] += added.length;
      const fresh = added.slice(Math.max(0, added.length - (seen[key] - shown[key])));
      if (fresh.length === 0 || !to) return;
      shown[key] += fresh.length;
      to(fresh);
    };
    // Read chunk by chunk rather than with for-await: a for-await left by a throw awaits the iterator's return(), that
    // is the aborted body's clean-up. Left early, the request is aborted and its clean-up is nobody's wait.
    const chunks = stream[Symbol.asyncIterator]();
    let complete = false;
    try {
      for (;;) {
        const next = await untilAborted(chunks.next(), watch.signal);
        if (next.done) break;
        watch.touch();
        const added = assembler.add(next.value);
        pass("thought", added.thought, request.onThought);
        pass("text", added.text, request.onDelta);
      }
      complete = true;
    } finally {
      if (!complete) {
        stream.controller.abort();
        chunks.return?.(undefined).catch(() => {});
      }
    }
    // The client's stream ends quietly when aborted between two reads.
    signal.throwIfAborted();
    watch.check();
    const answer = assembler.finish();
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

  #describe(failure: Failure, attempts: number): string {
    const keyNote =
      this.#keyMissing && (failure.status === 401 || failure.status === 403) ? ` (no API key sent: the environment variable ${this.#apiKeyEnv} is not set)` : "";
    const attemptsNote = attempts > 1 ? ` (gave up after ${attempts} attempts)` : "";
    return `model "${this.name}" at ${this.#baseUrl}: ${failure.message}${keyNote}${attemptsNote}`;
  }
}

function clientLogger(log: ModelLog): NonNullable<ClientOptions["logger"]> {
  const at = (level: "debug" | "info" | "warn" | "error") => (message: string) => log(level, `openai client: ${message}`);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

let fetchWarm: Promise<unknown> | null = null;

/**
 * fetch loads and compiles its machinery on first use (~50 ms on a small machine). A session on a real model starts
 * that as soon as its worker is bound, while the client is still composing the first prompt; no request is made.
 */
function warmUpFetch(): void {
  fetchWarm ??= fetch("data:,").then((response) => response.arrayBuffer()).catch(() => {});
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
