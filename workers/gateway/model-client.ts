// One configured model as the gateway calls it: the official `openai` client, made once per model and shared by every
// session that uses it (its connections to the server are kept alive between requests). One attempt is one streamed
// request, assembled here; what to do when it fails (retry, compact, give up) is the session worker's. A cancel or a
// stream gone quiet ends the attempt at once, whatever the response does after it (until-aborted.ts).
import { OpenAI, type ClientOptions } from "openai";
import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import type { AssembledResponse, GatewayFailure } from "../../src/protocol/model-gateway.js";
import type { ModelConfig } from "../../src/protocol/port.js";
import { retryAfterMs } from "../models/retry.js";
import { IdleWatch } from "./idle-watch.js";
import { classify, fetchNormalizingErrors, isContextOverflow } from "./openai-errors.js";
import { ChunkAssembler, type ChunkDelta } from "./openai-stream.js";
import { untilAborted } from "./until-aborted.js";

export const DEFAULT_API_KEY_ENV = "OPENAI_API_KEY";

export type GatewayLog = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  data?: Record<string, unknown>,
) => void;

/** An attempt that failed: what the session worker is told. */
export class AttemptFailed extends Error {
  constructor(
    readonly failure: GatewayFailure,
    /** The response's headers, when there was a response (the scheduler reads a 429's). */
    readonly headers?: Headers,
  ) {
    super(failure.message);
  }
}

export interface Attempt {
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionFunctionTool[];
  signal: AbortSignal;
  /** Text and reasoning as they arrive; absent when nobody shows them. */
  onDelta?: (delta: ChunkDelta) => void;
  /** Told when the stream's first chunk arrives. */
  onFirstChunk?: () => void;
  /** Sent as the request's traceparent header (a traced turn). */
  traceparent?: string;
  /** The response's headers, once they arrive (its rate-limit headers are the scheduler's). */
  onHeaders?: (headers: Headers) => void;
  /** The tenant's key for the provider's cache (never a session's: a fan-out's shared prefix stays cached). */
  cacheKey?: string;
}

export class ModelClient {
  readonly #model: string;
  readonly #idleTimeoutMs: number;
  readonly #client: OpenAI;
  readonly #cacheKeyField: ModelConfig["cacheKeyField"];

  constructor(config: ModelConfig, log: GatewayLog) {
    this.#model = config.model;
    this.#idleTimeoutMs = config.idleTimeoutMs ?? 0;
    this.#cacheKeyField = config.cacheKeyField;
    // The key is read here, in the gateway's thread; it never crosses a port and is never logged.
    const key = process.env[config.apiKeyEnv ?? DEFAULT_API_KEY_ENV];
    this.#client = new OpenAI({
      baseURL: config.baseUrl ?? "",
      // Without a key (local servers need none) no Authorization header is sent at all.
      apiKey: key || "unset",
      ...(key ? {} : { defaultHeaders: { Authorization: null } }),
      // Explicit, so the client does not pick up OPENAI_* variables meant for another endpoint.
      organization: null,
      project: null,
      adminAPIKey: null,
      maxRetries: 0,
      fetch: fetchNormalizingErrors,
      // The client's own log goes to the host's log, at a level OPENAI_LOG cannot raise.
      logLevel: "warn",
      logger: clientLogger(log),
    });
  }

  /** One streamed request, assembled; rejects with AttemptFailed (or the signal's reason once cancelled). */
  async attempt(attempt: Attempt): Promise<AssembledResponse> {
    const watch = new IdleWatch(attempt.signal, this.#idleTimeoutMs);
    try {
      return await this.#stream(attempt, watch);
    } catch (error) {
      if (attempt.signal.aborted) throw attempt.signal.reason;
      const failure = classify(error);
      throw new AttemptFailed(
        {
          retryable: failure.retryable,
          message: failure.message,
          status: failure.status,
          retryAfterMs: retryAfterMs(failure.headers),
          contextOverflow: isContextOverflow(failure),
        },
        failure.headers,
      );
    } finally {
      watch.dispose();
    }
  }

  async #stream(attempt: Attempt, watch: IdleWatch): Promise<AssembledResponse> {
    const params: ChatCompletionCreateParamsStreaming = {
      model: this.#model,
      messages: attempt.messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(attempt.tools && attempt.tools.length > 0 ? { tools: attempt.tools } : {}),
      ...(attempt.cacheKey && this.#cacheKeyField ? { [this.#cacheKeyField]: attempt.cacheKey } : {}),
    };
    // watch.signal aborts on a cancel and on a quiet stream: the client aborts the HTTP request, and this attempt
    // stops waiting for it there and then (watch.check() tells a quiet stream from a cancel).
    const { data: stream, response } = await untilAborted(
      this.#client.chat.completions
        .create(params, {
          signal: watch.signal,
          ...(attempt.traceparent ? { headers: { traceparent: attempt.traceparent } } : {}),
        })
        .withResponse(),
      watch.signal,
    );
    watch.touch();
    attempt.onHeaders?.(response.headers);
    const assembler = new ChunkAssembler();
    // Read chunk by chunk rather than with for-await: a for-await left by a throw awaits the iterator's return(), that
    // is the aborted body's clean-up. Left early, the request is aborted and its clean-up is nobody's wait.
    const chunks = stream[Symbol.asyncIterator]();
    let complete = false;
    let first = true;
    try {
      for (;;) {
        const next = await untilAborted(chunks.next(), watch.signal);
        if (next.done) break;
        watch.touch();
        if (first) {
          first = false;
          attempt.onFirstChunk?.();
        }
        const added = assembler.add(next.value);
        if (attempt.onDelta && (added.text.length > 0 || added.thought.length > 0)) attempt.onDelta(added);
      }
      complete = true;
    } catch (error) {
      watch.check();
      throw error;
    } finally {
      if (!complete) {
        stream.controller.abort();
        chunks.return?.(undefined).catch(() => {});
      }
    }
    // The client's stream ends quietly when aborted between two reads.
    attempt.signal.throwIfAborted();
    watch.check();
    return assembler.finish();
  }
}

function clientLogger(log: GatewayLog): NonNullable<ClientOptions["logger"]> {
  const at = (level: "debug" | "info" | "warn" | "error") => (message: string) =>
    log(level, `openai client: ${message}`);
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}
