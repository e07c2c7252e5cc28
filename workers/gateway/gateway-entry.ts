// The model gateway's thread (src/protocol/model-gateway.ts, gateway-asks.ts): every OpenAI-compatible request of
// every session of the host, made from one isolate where the HTTP client stays compiled and warm and its connections
// stay open. The main thread tells it the models and hands it one port per session worker; each request on a port is
// answered on that port only, once. Nothing a session worker sends is trusted: a malformed message is dropped and
// logged, and a request for a model this host was not configured with fails.
import { parentPort, type MessagePort } from "node:worker_threads";
import type { ChatCompletionFunctionTool, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { compile, config as zodConfig } from "zod/mini";
import en from "zod/v4/locales/en.js";
import { GatewayAsk, GatewayControl, type Share } from "../../src/protocol/gateway-asks.js";
import type { GatewayReply } from "../../src/protocol/model-gateway.js";
import { AttemptFailed, ModelClient, type GatewayLog } from "./model-client.js";
import { nowMs } from "../../src/protocol/trace.js";
import { ProviderBusy, Refused, type EndpointScheduler } from "./endpoint-scheduler.js";
import { Endpoints } from "./endpoints.js";
import { tenantCacheKey } from "./cache-key.js";
import { BudgetLedger } from "./budget-ledger.js";
import { costUsd, type Price } from "../../src/protocol/budget.js";
import type { AssembledUsage } from "../../src/protocol/model-gateway.js";

zodConfig(en());
const asks = compile(GatewayAsk);
const controls = compile(GatewayControl);

const host = parentPort!;
const log: GatewayLog = (level, msg, data) =>
  host.postMessage({ type: "log_line", level, msg, ...(data ? { data } : {}) });
let clients = new Map<string, { client: ModelClient; scheduler: EndpointScheduler; price: Price | undefined }>();
const endpoints = new Endpoints((report) => host.postMessage(report), log);
const budgets = new BudgetLedger();

host.on("message", (message: unknown) => {
  const control = controls.safeParse(message);
  if (!control.success)
    return log("error", "malformed message from the main thread dropped", { error: control.error.message });
  if (control.data.type === "models") {
    const models = control.data.models.filter((model) => model.provider === "openai-compatible");
    const schedulers = endpoints.configure(models);
    clients = new Map(
      models.map((model) => [
        model.model,
        { client: new ModelClient(model, log), scheduler: schedulers.get(model.model)!, price: model.price },
      ]),
    );
    return;
  }
  if (control.data.type === "weights") return endpoints.weigh(control.data.weights);
  if (control.data.type === "budget") return budgets.setBudget(control.data.tree, control.data.budget, true);
  const port = (message as { port?: unknown }).port;
  if (!isPort(port))
    return log("error", "a session's connection arrived without its port", { label: control.data.label });
  serve(port, control.data.label, control.data.share);
});

function isPort(value: unknown): value is MessagePort {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as MessagePort).postMessage === "function" &&
    typeof (value as MessagePort).on === "function"
  );
}

/** A session worker's requests: at most what it asked for runs, each ended by its cancel or the port's close. */
function serve(port: MessagePort, label: string, share: Share): void {
  const cacheKey = share.tenant === null ? undefined : tenantCacheKey(share.tenant);
  if (share.budget) budgets.setBudget(share.tree, share.budget);
  const running = new Map<number, AbortController>();
  const reply = (answer: GatewayReply) => port.postMessage(answer);
  port.on("message", (data: unknown) => {
    const ask = asks.safeParse(data);
    if (!ask.success)
      return log("warn", "malformed request from a session worker dropped", {
        session: label,
        error: ask.error.message,
      });
    const message = ask.data;
    if (message.type === "cancel") return running.get(message.id)?.abort();
    if (message.type === "spent") {
      if (message.budget) budgets.setBudget(share.tree, message.budget);
      return budgets.told(share.tree, label, message.tokens, message.costUsd);
    }
    const model = clients.get(message.model);
    if (!model) {
      return reply({
        type: "failed",
        id: message.id,
        failure: {
          retryable: false,
          message: `model "${message.model}" is not one this host was configured with`,
          status: null,
          retryAfterMs: null,
          contextOverflow: false,
        },
      });
    }
    const estimate = estimatedTokens(message.messages, message.tools);
    const estimateUsd = model.price ? costUsd(model.price, { prompt: estimate, completion: 0, cached: 0 }) : 0;
    const overBudget = budgets.refusal(share.tree, estimate, estimateUsd);
    if (overBudget !== null) {
      return reply({
        type: "failed",
        id: message.id,
        failure: {
          retryable: false,
          message: overBudget,
          status: null,
          retryAfterMs: null,
          contextOverflow: false,
          budgetReached: true,
        },
      });
    }
    const controller = new AbortController();
    running.set(message.id, controller);
    let firstChunkAtMs: number | null = null;
    const { client, scheduler } = model;
    scheduler
      .submit({
        signal: controller.signal,
        share,
        tokens: () => estimatedTokens(message.messages, message.tools),
        onWaited: (ms) => endpoints.waited(ms),
        onWait: ({ what, untilMs }) => reply({ type: "waiting", id: message.id, what, untilMs }),
        send: (onHeaders) =>
          client
            .attempt({
              messages: message.messages as unknown as ChatCompletionMessageParam[],
              ...(message.tools ? { tools: message.tools as unknown as ChatCompletionFunctionTool[] } : {}),
              signal: controller.signal,
              onHeaders,
              ...(cacheKey ? { cacheKey } : {}),
              onFirstChunk: () => (firstChunkAtMs = nowMs()),
              ...(message.traceparent ? { traceparent: message.traceparent } : {}),
              ...(message.forward
                ? {
                    onDelta: (delta) =>
                      reply({ type: "delta", id: message.id, text: delta.text, thought: delta.thought }),
                  }
                : {}),
            })
            .catch((error: unknown) => {
              // A refusal for the provider's limits is the scheduler's to wait out, not the session's to retry.
              if (error instanceof AttemptFailed && error.failure.status === 429)
                throw new Refused(error.failure.message, error.headers);
              throw error;
            }),
      })
      .then(
        (response) => {
          if (response.usage)
            budgets.add(share.tree, label, response.usage.totalTokens, priced(model.price, response.usage));
          reply({ type: "done", id: message.id, response, firstChunkAtMs });
        },
        (error: unknown) => {
          // A cancelled request's waiter has gone already: nothing more is said of it.
          if (controller.signal.aborted) return;
          const failure =
            error instanceof AttemptFailed
              ? error.failure
              : error instanceof ProviderBusy
                ? {
                    retryable: false,
                    message: error.message,
                    status: 429,
                    retryAfterMs: null,
                    contextOverflow: false,
                    providerBusy: true,
                  }
                : {
                    retryable: false,
                    message: `unexpected error: ${(error as Error).message}`,
                    status: null,
                    retryAfterMs: null,
                    contextOverflow: false,
                  };
          reply({ type: "failed", id: message.id, failure });
        },
      )
      .finally(() => running.delete(message.id));
  });
  // The session's worker ended: what it was waiting for is of no use any more.
  port.on("close", () => {
    for (const controller of running.values()) controller.abort();
    running.clear();
  });
}

/** About one token per 4 characters of what is sent: held against the provider's x-ratelimit-remaining-tokens. */
function estimatedTokens(messages: readonly unknown[], tools: readonly unknown[] | undefined): number {
  return Math.ceil(JSON.stringify(messages).length / 4 + (tools ? JSON.stringify(tools).length / 4 : 0));
}

/** What a response's tokens cost at its model's price (0 when it has none). */
function priced(price: Price | undefined, usage: AssembledUsage): number {
  if (!price) return 0;
  const prompt = usage.promptTokens ?? 0;
  return costUsd(price, { prompt, completion: usage.completionTokens ?? 0, cached: usage.cachedTokens ?? 0 });
}
