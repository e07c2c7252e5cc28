// A local stand-in for an OpenAI-compatible chat-completions service, for tests and benchmarks: an HTTP server on
// 127.0.0.1 that speaks the wire format (SSE streaming and plain JSON, tool-call deltas split across chunks, usage in
// the final chunk, errors in OpenAI's error body, reasoning_content deltas, a context limit answered with the
// providers' real error bodies) with scripted replies, pacing and injected failures. It records what it received,
// and whether a client closed a connection before its response was complete.
// It stands in for the remote service only: the provider under test is the real one.
import { once } from "node:events";
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface ScriptedToolCall {
  /** Default: call_<request>_<position>. */
  id?: string;
  name: string;
  /** An object is sent as its JSON; a string is sent as is (it need not be valid JSON). */
  arguments: string | Record<string, unknown>;
}

export type InjectedFailure =
  /**
   * An HTTP error with OpenAI's error body; `retryAfterMs` adds a retry-after-ms header. `body` replaces the body
   * (other servers' shapes: vLLM's {object:"error", message}, Ollama's {error:"…"}).
   */
  | { status: number; message: string; type?: string; code?: string | null; retryAfterMs?: number; body?: unknown }
  /** The server destroys the connection: before answering (0) or after that many SSE chunks. */
  | { dropAfterChunks: number };

export interface Reply {
  text?: string;
  /** Streamed as reasoning_content deltas before the text (DeepSeek, vLLM's reasoning parser). */
  reasoning?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop". */
  finish?: "stop" | "tool_calls" | "length" | "content_filter";
  /** Usage of the final chunk; null sends none even when the client asked. Default: estimated from the sizes. */
  usage?: ({ prompt_tokens: number; completion_tokens: number } & Record<string, unknown>) | null;
  fail?: InjectedFailure;
  /** Pacing for this reply only (see OpenAiServerOptions). */
  headersMs?: number;
  firstTokenMs?: number;
  tokensPerSecond?: number;
  chunkChars?: number;
  /** Written as the stream's first event's data, as is (a server that sends what is not JSON). */
  malformedChunk?: string;
  /**
   * The server goes on through its chunks at its pace after the client has closed the connection (writing nothing),
   * as a model server that does not notice a closed connection goes on generating. Stopped by close().
   */
  streamsAfterClose?: boolean;
}

export interface OpenAiServerOptions {
  /** Delay before the response headers: nothing at all reaches the client until then (ms). Default 0. */
  headersMs?: number;
  /** Delay between the response headers and the first chunk (ms). Default 0. */
  firstTokenMs?: number;
  /** Chunks per second after the first; 0 sends them as fast as possible. Default 0. */
  tokensPerSecond?: number;
  /** Characters of text, or of tool-call arguments, per chunk. Default 4. */
  chunkChars?: number;
  /** The reply when no enqueued reply is waiting. Default: echoes the last user message, naming the model. */
  respond?: (request: RecordedRequest) => Reply;
  /** When set, a request without "Authorization: Bearer <apiKey>" gets a 401. */
  apiKey?: string;
  /** When set, a request for another model gets a 404 model_not_found. */
  models?: string[];
  /**
   * When set, a request whose tokens (requestTokens) pass it gets a 400 with the body the named provider sends
   * for a context-length overflow (default "openai").
   */
  contextLimit?: number;
  contextErrorStyle?: "openai" | "deepseek" | "vllm";
}

/** What this server counts as a request's prompt tokens: its messages and tools as JSON, 4 characters a token. */
export function requestTokens(body: ChatRequestBody): number {
  return Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools ?? [] }).length / 4);
}

export interface ChatMessageBody {
  role: string;
  content?: string | null | Array<{ type: string; text?: string }>;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  reasoning_content?: string;
}

export interface ChatRequestBody {
  model: string;
  messages: ChatMessageBody[];
  tools?: Array<{
    type: string;
    function: { name: string; description?: string; parameters?: Record<string, unknown> };
  }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

export type RequestEnd = "completed" | "client-closed" | "dropped";

export interface RecordedRequest {
  index: number;
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: ChatRequestBody;
  /** How the response ended; "client-closed" means the client closed the connection before it was complete. */
  readonly ended: Promise<RequestEnd>;
  /** Settles once the server is done with the request: its last chunk sent, or (streamsAfterClose) skipped. */
  readonly served: Promise<void>;
  /** Resolves once the server has written that many SSE chunks of its response. */
  chunksWritten(count: number): Promise<void>;
  /** Text of the last user message. */
  readonly lastUserText: string;
  /** The client's end of the connection it came on ("address:port"): requests on a kept-alive connection share it. */
  readonly connection: string;
}

interface Pacing {
  headersMs: number;
  firstTokenMs: number;
  tokensPerSecond: number;
  chunkChars: number;
}

export class OpenAiTestServer {
  readonly requests: RecordedRequest[] = [];
  readonly #server: Server;
  readonly #options: OpenAiServerOptions;
  readonly #queue: Reply[] = [];
  readonly #waiters: Array<{ count: number; resolve: () => void }> = [];
  #url = "";
  #closed = false;
  /** SSE chunks written per response, and who waits for how many. */
  readonly #chunkCounts = new WeakMap<
    ServerResponse,
    { count: number; waiters: Array<{ count: number; resolve: () => void }> }
  >();

  private constructor(options: OpenAiServerOptions) {
    this.#options = options;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }

  static async start(options: OpenAiServerOptions = {}): Promise<OpenAiTestServer> {
    const server = new OpenAiTestServer(options);
    server.#server.listen(0, "127.0.0.1");
    await once(server.#server, "listening");
    const { port } = server.#server.address() as AddressInfo;
    server.#url = `http://127.0.0.1:${port}/v1`;
    return server;
  }

  /** The base URL for a client: http://127.0.0.1:<port>/v1. */
  get url(): string {
    return this.#url;
  }

  /** The host's flags for a model served here: the OpenAI-compatible provider at this URL, by that name. */
  hostArgs(model = "m"): string[] {
    return ["--model-provider", "openai-compatible", "--base-url", this.#url, "--model", model];
  }

  /** Replies for the next requests, in order; when none is waiting the `respond` default answers. */
  enqueue(...replies: Reply[]): void {
    this.#queue.push(...replies);
  }

  /** Resolves once `count` requests in all have arrived. */
  waitForRequests(count: number): Promise<void> {
    if (this.requests.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ count, resolve }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (req.method === "GET" && path === "/v1/models") {
      const ids = this.#options.models ?? [];
      return sendJson(res, 200, {
        object: "list",
        data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "test" })),
      });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      return sendError(res, {
        status: 404,
        message: `Unknown request URL: ${req.method} ${path}`,
        type: "invalid_request_error",
        code: "unknown_url",
      });
    }
    const raw = await readBody(req);
    let body: ChatRequestBody;
    try {
      body = JSON.parse(raw) as ChatRequestBody;
    } catch {
      return sendError(res, {
        status: 400,
        message: "We could not parse the JSON body of your request.",
        type: "invalid_request_error",
      });
    }
    let dropped = false;
    const ended = new Promise<RequestEnd>((resolve) => {
      res.once("close", () => resolve(res.writableFinished ? "completed" : dropped ? "dropped" : "client-closed"));
    });
    let markServed = () => {};
    const served = new Promise<void>((resolve) => (markServed = resolve));
    const written = { count: 0, waiters: [] as Array<{ count: number; resolve: () => void }> };
    this.#chunkCounts.set(res, written);
    const recorded: RecordedRequest = {
      index: this.requests.length,
      method: req.method,
      path,
      headers: req.headers,
      body,
      ended,
      served,
      chunksWritten: (count) =>
        written.count >= count ? Promise.resolve() : new Promise((resolve) => written.waiters.push({ count, resolve })),
      lastUserText: lastUserText(body),
      connection: `${req.socket.remoteAddress}:${req.socket.remotePort}`,
    };
    try {
      await this.#answer(req, res, recorded, () => (dropped = true));
    } finally {
      markServed();
    }
  }

  async #answer(
    req: IncomingMessage,
    res: ServerResponse,
    recorded: RecordedRequest,
    markDropped: () => void,
  ): Promise<void> {
    const body = recorded.body;
    this.requests.push(recorded);
    for (const waiter of this.#waiters.filter((w) => this.requests.length >= w.count)) {
      this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
      waiter.resolve();
    }

    const key = this.#options.apiKey;
    if (key !== undefined && req.headers.authorization !== `Bearer ${key}`) {
      return sendError(res, {
        status: 401,
        message:
          "Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
        type: "invalid_request_error",
        code: "invalid_api_key",
      });
    }
    const models = this.#options.models;
    if (models && !models.includes(body.model)) {
      return sendError(res, {
        status: 404,
        message: `The model \`${body.model}\` does not exist or you do not have access to it.`,
        type: "invalid_request_error",
        code: "model_not_found",
      });
    }
    const limit = this.#options.contextLimit;
    if (limit !== undefined && requestTokens(body) > limit) {
      return sendError(res, contextOverflow(this.#options.contextErrorStyle ?? "openai", limit, requestTokens(body)));
    }
    const reply = this.#queue.shift() ?? (this.#options.respond ?? echo)(recorded);
    const pacing: Pacing = {
      headersMs: reply.headersMs ?? this.#options.headersMs ?? 0,
      firstTokenMs: reply.firstTokenMs ?? this.#options.firstTokenMs ?? 0,
      tokensPerSecond: reply.tokensPerSecond ?? this.#options.tokensPerSecond ?? 0,
      chunkChars: Math.max(1, reply.chunkChars ?? this.#options.chunkChars ?? 4),
    };
    if (pacing.headersMs > 0) await sleep(pacing.headersMs);
    if (res.destroyed) return;
    const fail = reply.fail;
    if (fail && "dropAfterChunks" in fail && fail.dropAfterChunks === 0) {
      markDropped();
      req.socket.destroy();
      return;
    }
    if (fail && "status" in fail) return sendError(res, fail);
    const dropAfter = fail && "dropAfterChunks" in fail ? fail.dropAfterChunks : Infinity;
    const completion = buildCompletion(recorded, reply, pacing.chunkChars);
    if (body.stream) {
      await this.#stream(
        res,
        completion,
        pacing,
        dropAfter,
        body.stream_options?.include_usage === true,
        markDropped,
        reply.streamsAfterClose === true,
        reply.malformedChunk,
      );
    } else {
      await sleep(pacing.firstTokenMs + tokenDelay(pacing) * Math.max(0, completion.chunks.length - 1));
      if (!res.destroyed) sendJson(res, 200, completion.whole);
    }
  }

  async #stream(
    res: ServerResponse,
    completion: Completion,
    pacing: Pacing,
    dropAfter: number,
    includeUsage: boolean,
    markDropped: () => void,
    afterClose: boolean,
    malformed?: string,
  ): Promise<void> {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    res.flushHeaders();
    if (malformed !== undefined) res.write(`data: ${malformed}\n\n`);
    const chunks = [...completion.chunks];
    if (includeUsage && completion.usageChunk) chunks.push(completion.usageChunk);
    for (const [i, chunk] of chunks.entries()) {
      const wait = i === 0 ? pacing.firstTokenMs : tokenDelay(pacing);
      if (wait > 0) await sleep(wait);
      if (this.#closed) return;
      if (res.destroyed) {
        if (afterClose) continue;
        return;
      }
      if (i >= dropAfter) {
        markDropped();
        res.socket?.destroy();
        return;
      }
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
      const written = this.#chunkCounts.get(res);
      if (written) {
        written.count++;
        for (const waiter of written.waiters.filter((w) => written.count >= w.count)) {
          written.waiters.splice(written.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
    }
    if (!res.destroyed) res.end("data: [DONE]\n\n");
  }
}

interface Completion {
  chunks: object[];
  usageChunk: object | null;
  whole: object;
}

function buildCompletion(request: RecordedRequest, reply: Reply, chunkChars: number): Completion {
  const id = `chatcmpl-test-${request.index}`;
  const created = Math.floor(Date.now() / 1000);
  const model = request.body.model;
  const head = { id, object: "chat.completion.chunk", created, model, system_fingerprint: "fp_test" };
  const text = reply.text ?? "";
  const calls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${request.index}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
  }));
  const finish = reply.finish ?? (calls.length > 0 ? "tool_calls" : "stop");
  const delta = (d: object, finishReason: string | null = null) => ({
    ...head,
    choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }],
  });

  const reasoning = reply.reasoning ?? "";
  const chunks: object[] = [delta({ role: "assistant", content: "" })];
  for (const piece of split(reasoning, chunkChars)) chunks.push(delta({ content: null, reasoning_content: piece }));
  for (const piece of split(text, chunkChars)) chunks.push(delta({ content: piece }));
  calls.forEach((call, index) => {
    chunks.push(
      delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of split(call.arguments, chunkChars))
      chunks.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(delta({}, finish));

  const completionTokens = Math.max(1, chunks.length - 2);
  const promptTokens = requestTokens(request.body);
  const usage =
    reply.usage === null
      ? null
      : (() => {
          const u = reply.usage ?? { prompt_tokens: promptTokens, completion_tokens: completionTokens };
          return { ...u, total_tokens: u.prompt_tokens + u.completion_tokens };
        })();
  const whole = {
    id,
    object: "chat.completion",
    created,
    model,
    system_fingerprint: "fp_test",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: text.length > 0 ? text : null,
          ...(reasoning.length > 0 ? { reasoning_content: reasoning } : {}),
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((c) => ({
                  id: c.id,
                  type: "function",
                  function: { name: c.name, arguments: c.arguments },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: finish,
      },
    ],
    ...(usage ? { usage } : {}),
  };
  return { chunks, usageChunk: usage ? { ...head, choices: [], usage } : null, whole };
}

/** The 400 each provider answers when a request passes the model's context length (their real bodies). */
function contextOverflow(
  style: "openai" | "deepseek" | "vllm",
  limit: number,
  tokens: number,
): Extract<InjectedFailure, { status: number }> {
  switch (style) {
    case "openai":
      return {
        status: 400,
        message: `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        code: "context_length_exceeded",
      };
    case "deepseek": {
      const message = `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens (${tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`;
      return { status: 400, message, type: "invalid_request_error", code: "invalid_request_error" };
    }
    case "vllm": {
      const message = `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens in the messages, Please reduce the length of the messages.`;
      return {
        status: 400,
        message,
        body: { object: "error", message, type: "BadRequestError", param: null, code: 400 },
      };
    }
  }
}

function echo(request: RecordedRequest): Reply {
  return { text: `[${request.body.model}] you said: ${request.lastUserText}` };
}

function lastUserText(body: ChatRequestBody): string {
  const user = (body.messages ?? []).findLast((m) => m.role === "user");
  if (!user) return "";
  if (typeof user.content === "string") return user.content;
  return (user.content ?? []).map((part) => part.text ?? "").join("");
}

/** Splits by UTF-16 code units, so a chunk boundary may fall inside a surrogate pair (JSON escapes it). */
function split(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function tokenDelay(pacing: Pacing): number {
  return pacing.tokensPerSecond > 0 ? 1000 / pacing.tokensPerSecond : 0;
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, fail: Extract<InjectedFailure, { status: number }>): void {
  const headers: Record<string, string> =
    fail.retryAfterMs !== undefined ? { "retry-after-ms": String(fail.retryAfterMs) } : {};
  const body = fail.body ?? {
    error: { message: fail.message, type: fail.type ?? "server_error", param: null, code: fail.code ?? null },
  };
  sendJson(res, fail.status, body, headers);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}
