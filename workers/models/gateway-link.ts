// A session worker's end of its port to the model gateway (src/protocol/model-gateway.ts): requests go out with an id,
// their deltas and their one answer come back on the same port, checked. A cancel stops the wait at once and tells the
// gateway; a gateway that went away fails what waited on it, and the host hands the worker a new port.
import { costUsd, type Budget, type Price } from "../../src/protocol/budget.js";
import type { MessagePort } from "node:worker_threads";
import type { GatewayAsk } from "../../src/protocol/gateway-asks.js";
import { GatewayReply, type AssembledResponse, type GatewayFailure } from "../../src/protocol/model-gateway.js";

/** The gateway said the attempt failed (or could not be reached): what went wrong, and whether to try again. */
export class GatewayFailed extends Error {
  constructor(readonly failure: GatewayFailure) {
    super(failure.message);
  }
}

/** The gateway's answer to one request, and when the stream's first chunk came (null: none did). */
export interface GatewayAnswer {
  response: AssembledResponse;
  firstChunkAtMs: number | null;
}

interface Pending {
  resolve(answer: GatewayAnswer): void;
  reject(error: unknown): void;
  onDelta: ((text: string, thought: string) => void) | null;
  onWaiting: ((waiting: ProviderWaiting) => void) | null;
}

/** What a request waits for at its provider endpoint, and until when (epoch ms; null: until room frees up). */
export interface ProviderWaiting {
  what: "window" | "pause" | "requests" | "tokens";
  untilMs: number | null;
}

const GONE: GatewayFailure = {
  retryable: true,
  message: "the host's model gateway went away mid-request",
  status: null,
  retryAfterMs: 0,
  contextOverflow: false,
};

export class GatewayLink {
  #port: MessagePort | null;
  #nextId = 0;
  readonly #pending = new Map<number, Pending>();
  readonly #onMalformed: (error: string) => void;
  /** Tokens the session has spent since it was created (null until its log is read): told on each connect. */
  #spent: number | null = null;
  /** Its tree's budget as its log holds it (a root's): told with the spend, so a restarted host holds it again. */
  #budget: Budget | null = null;
  /** What the spend cost (US dollars) at the session's models' prices; `price`: its model's now. */
  #costUsd = 0;
  #price: Price | undefined;

  constructor(port: MessagePort | null, onMalformed: (error: string) => void) {
    this.#onMalformed = onMalformed;
    this.#port = null;
    if (port) this.connect(port);
  }

  /** A (new) port to the gateway: what waited on the old one fails as retryable. */
  connect(port: MessagePort): void {
    this.#drop();
    this.#port = port;
    port.on("message", (data: unknown) => this.#receive(data));
    if (this.#spent !== null) port.postMessage(this.#told(this.#spent));
    port.on("close", () => {
      if (this.#port === port) this.#drop();
    });
  }

  /** The tokens the session's log says it spent: the gateway counts them against its tree's budget. */
  restored(tokens: number, budget: Budget | null, restoredUsd = 0): void {
    this.#spent = tokens;
    this.#costUsd = restoredUsd;
    this.#budget = budget;
    this.#port?.postMessage(this.#told(tokens));
  }

  /** A budget journaled since (_host/set_budget): told on the next connect (a restarted gateway). */
  /** The session's model's prices from now on (its responses' cost is counted at them). */
  priced(price: Price | undefined): void {
    this.#price = price;
  }

  budgetJournaled(budget: Budget): void {
    this.#budget = budget;
  }

  #told(tokens: number): GatewayAsk {
    return { type: "spent", tokens, costUsd: this.#costUsd, ...(this.#budget ? { budget: this.#budget } : {}) };
  }

  request(
    ask: Omit<Extract<GatewayAsk, { type: "request" }>, "type" | "id" | "forward">,
    signal: AbortSignal,
    onDelta: Pending["onDelta"],
    onWaiting: Pending["onWaiting"] = null,
  ): Promise<GatewayAnswer> {
    const port = this.#port;
    if (!port)
      return Promise.reject(
        new GatewayFailed({
          ...GONE,
          message: "this host has no model gateway (no OpenAI-compatible model is configured)",
        }),
      );
    signal.throwIfAborted();
    const id = this.#nextId++;
    return new Promise<GatewayAnswer>((resolve, reject) => {
      const onAbort = () => {
        this.#pending.delete(id);
        port.postMessage({ type: "cancel", id } satisfies GatewayAsk);
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      const settle =
        <T>(then: (value: T) => void) =>
        (value: T) => {
          signal.removeEventListener("abort", onAbort);
          then(value);
        };
      this.#pending.set(id, { resolve: settle(resolve), reject: settle(reject), onDelta, onWaiting });
      port.postMessage({ type: "request", id, forward: onDelta !== null, ...ask } satisfies GatewayAsk);
    });
  }

  #receive(data: unknown): void {
    const parsed = GatewayReply.safeParse(data);
    if (!parsed.success) return this.#onMalformed(parsed.error.message);
    const reply = parsed.data;
    const pending = this.#pending.get(reply.id);
    if (!pending) return;
    if (reply.type === "delta") return pending.onDelta?.(reply.text, reply.thought);
    if (reply.type === "waiting") return pending.onWaiting?.({ what: reply.what, untilMs: reply.untilMs });
    this.#pending.delete(reply.id);
    const usage = reply.type === "done" ? reply.response.usage : null;
    if (usage && this.#spent !== null) {
      this.#spent += usage.totalTokens;
      if (this.#price) {
        const counts = { prompt: usage.promptTokens ?? 0, completion: usage.completionTokens ?? 0 };
        this.#costUsd += costUsd(this.#price, { ...counts, cached: usage.cachedTokens ?? 0 });
      }
    }
    if (reply.type === "done") pending.resolve({ response: reply.response, firstChunkAtMs: reply.firstChunkAtMs });
    else pending.reject(new GatewayFailed(reply.failure));
  }

  #drop(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const waiter of pending) waiter.reject(new GatewayFailed(GONE));
  }
}
