// A provider with limits, on loopback: an OpenAI-compatible chat-completions server (SSE, usage in the last chunk)
// that says no the ways real providers do. A cap on requests at once answered with a 429 past it (DeepSeek's way,
// with or without Retry-After), requests per window with OpenAI's x-ratelimit-* headers and a 429 at zero, and a mode
// that never refuses and only slows with load (vLLM's). It counts what a test asserts on: requests received, refused,
// completed, and in flight now and at the peak, as the provider sees them. Responses can be held until released, so
// a test waits for counts rather than for time.
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

export interface EmulatorOptions {
  /** At most this many requests in flight at once; one more is answered 429. Unset: no cap. */
  concurrency?: number;
  /** What a 429 says of when to come back (default: nothing, as DeepSeek). */
  retryAfter?: { seconds: number } | { ms: number };
  /** At most this many requests per fixed window of `windowMs` (default a minute), told in x-ratelimit-* headers. */
  requestsPerWindow?: number;
  windowMs?: number;
  /** ms from the request to the first chunk (default 0). */
  firstTokenMs?: number;
  /** Text chunks of a response (default 4) and ms between them (default 0). */
  chunks?: number;
  chunkMs?: number;
  /** Slows with load and never refuses: each request in flight when one arrives adds this to its first chunk. */
  slowdownPerInFlightMs?: number;
  /** Responses wait for release() before their first chunk. */
  held?: boolean;
}

interface Waiter {
  done(): boolean;
  resolve(): void;
}

export class ProviderEmulator {
  readonly #server: Server;
  readonly #options: EmulatorOptions;
  #url = "";
  /** The rate window starts with the first request (the floor of the provider's limits counts from there). */
  #windowStartMs = 0;
  #windowCount = 0;
  #released: Promise<void>;
  #release: () => void = () => {};
  #waiters: Waiter[] = [];
  #closed = false;
  /** Requests received (refused ones included), refused with a 429, answered in full. */
  received = 0;
  refused = 0;
  completed = 0;
  inFlight = 0;
  peakInFlight = 0;
  /** The last user message of each request admitted (not refused), in the order they were. */
  readonly admitted: string[] = [];

  private constructor(options: EmulatorOptions) {
    this.#options = options;
    this.#released = options.held ? new Promise((resolve) => (this.#release = resolve)) : Promise.resolve();
    this.#server = createServer((req, res) => void this.#handle(req, res));
    this.#server.keepAliveTimeout = 60_000;
  }

  static async start(options: EmulatorOptions = {}): Promise<ProviderEmulator> {
    const emulator = new ProviderEmulator(options);
    emulator.#server.listen(0, "127.0.0.1");
    await once(emulator.#server, "listening");
    emulator.#url = `http://127.0.0.1:${(emulator.#server.address() as AddressInfo).port}/v1`;
    return emulator;
  }

  get url(): string {
    return this.#url;
  }

  hostArgs(model = "emulated"): string[] {
    return ["--model-provider", "openai-compatible", "--base-url", this.#url, "--model", model];
  }

  /** Held responses go on (and every later one is not held). */
  release(): void {
    this.#release();
  }

  /** Resolves once the condition on the counts holds. */
  until(condition: (emulator: ProviderEmulator) => boolean): Promise<void> {
    if (condition(this)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ done: () => condition(this), resolve }));
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.release();
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #changed(): void {
    const ready = this.#waiters.filter((waiter) => waiter.done());
    this.#waiters = this.#waiters.filter((waiter) => !ready.includes(waiter));
    for (const waiter of ready) waiter.resolve();
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
      model: string;
      messages: Array<{ role: string; content?: unknown }>;
    };
    this.received++;
    const limits = this.#rateWindow();
    if (this.#options.concurrency !== undefined && this.inFlight >= this.#options.concurrency) {
      return this.#refuse(res, "Too many concurrent requests for this account and model", this.#retryAfter());
    }
    if (limits && limits.remaining < 0) {
      return this.#refuse(res, "Rate limit reached for requests per min", {
        ...limits.headers,
        "x-ratelimit-remaining-requests": "0",
      });
    }
    this.admitted.push(lastUserText(body.messages));
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    let counted = true;
    const leave = () => {
      if (!counted) return;
      counted = false;
      this.inFlight--;
      this.#changed();
    };
    res.once("close", leave);
    this.#changed();
    const slowdown = (this.#options.slowdownPerInFlightMs ?? 0) * (this.inFlight - 1);
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...limits?.headers });
    res.flushHeaders();
    await this.#released;
    const firstMs = (this.#options.firstTokenMs ?? 0) + slowdown;
    if (firstMs > 0) await sleep(firstMs);
    const text = `[${body.model}] you said: ${lastUserText(body.messages)}`;
    const count = Math.max(1, this.#options.chunks ?? 4);
    const size = Math.ceil(text.length / count);
    for (let i = 0; i < count; i++) {
      if (i > 0 && (this.#options.chunkMs ?? 0) > 0) await sleep(this.#options.chunkMs!);
      if (res.destroyed || this.#closed) return leave();
      res.write(sse({ choices: [{ index: 0, delta: { content: text.slice(i * size, (i + 1) * size) } }] }));
    }
    const prompt = Math.ceil(JSON.stringify(body.messages).length / 4);
    const completion = Math.ceil(text.length / 4);
    res.write(sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
    res.write(
      sse({
        choices: [],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      }),
    );
    // Out of the count before the client can read the end: the next request it sends finds the room this one left.
    leave();
    this.completed++;
    this.#changed();
    res.end("data: [DONE]\n\n");
  }

  /** The fixed window's count after this request, and the headers that tell it. */
  #rateWindow(): { remaining: number; headers: Record<string, string> } | null {
    const limit = this.#options.requestsPerWindow;
    if (limit === undefined) return null;
    const windowMs = this.#options.windowMs ?? 60_000;
    const now = Date.now();
    if (now - this.#windowStartMs >= windowMs) {
      this.#windowStartMs = now;
      this.#windowCount = 0;
    }
    this.#windowCount++;
    const remaining = limit - this.#windowCount;
    return {
      remaining,
      headers: {
        "x-ratelimit-limit-requests": String(limit),
        "x-ratelimit-remaining-requests": String(Math.max(0, remaining)),
        "x-ratelimit-reset-requests": `${Math.max(1, this.#windowStartMs + windowMs - now)}ms`,
      },
    };
  }

  #retryAfter(): Record<string, string> {
    const said = this.#options.retryAfter;
    if (!said) return {};
    return "seconds" in said ? { "retry-after": String(said.seconds) } : { "retry-after-ms": String(said.ms) };
  }

  #refuse(res: ServerResponse, message: string, headers: Record<string, string>): void {
    this.refused++;
    this.#changed();
    res.writeHead(429, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify({ error: { message, type: "rate_limit_error", code: "rate_limit_exceeded" } }));
  }
}

function sse(data: object): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-emulated", object: "chat.completion.chunk", created: 0, ...data })}\n\n`;
}

function lastUserText(messages: Array<{ role: string; content?: unknown }>): string {
  const last = [...messages].reverse().find((message) => message.role === "user");
  const content = last?.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content
      .map((part) => (typeof part === "object" && part && "text" in part ? String(part.text) : ""))
      .join("");
  return "";
}
