// The main thread's hold on the model gateway (workers/gateway/, src/protocol/model-gateway.ts): started at boot when
// the host has an OpenAI-compatible model, told the models, handed one port per session worker, and started again if it
// ever dies (each live session is then given a new port, as after a spawner restart).
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import type { ModelConfig } from "../protocol/port.js";
import type { GatewayControl, Share } from "../protocol/gateway-asks.js";
import type { Budget } from "../protocol/budget.js";
import { EndpointsReport, type EndpointStatus } from "../protocol/provider-endpoints.js";

const GATEWAY_ENTRY = new URL("../../workers/bundle/model-gateway.js", import.meta.url);

/** What the gateway logs, by way of the main thread's logger. */
export type GatewayLogger = (
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  data: Record<string, unknown>,
) => void;

const LEVELS = new Set(["debug", "info", "warn", "error"]);

export class ModelGateway {
  readonly #models: ModelConfig[];
  readonly #log: GatewayLogger;
  readonly #restartListeners: Array<() => void> = [];
  readonly #reportListeners: Array<(report: EndpointsReport) => void> = [];
  #endpoints: EndpointStatus[] = [];
  #weights: Record<string, number> = {};
  /** Session trees' budgets as _host/set_budget last set them: kept for a restarted gateway. */
  readonly #budgets = new Map<string, Budget>();
  #worker: Worker;
  #closing = false;

  /** A gateway for these models, or null when none is a real model (the scripted one needs none). */
  static start(models: readonly ModelConfig[], log: GatewayLogger): ModelGateway | null {
    const real = models.filter((model) => model.provider === "openai-compatible");
    return real.length > 0 ? new ModelGateway(real, log) : null;
  }

  private constructor(models: ModelConfig[], log: GatewayLogger) {
    this.#models = models;
    this.#log = log;
    this.#worker = this.#spawn();
  }

  /** A new session worker's port to the gateway (transfer it to the worker); `share`: whose its requests are. */
  connect(label: string, share: Share): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.#worker.postMessage({ type: "connect", label, share, port: port1 }, [port1]);
    return port2;
  }

  /** A session tree's budget from now on (_host/set_budget): the tree's next request is held against it. */
  budget(tree: string, budget: Budget): void {
    this.#budgets.set(tree, budget);
    this.#worker.postMessage({ type: "budget", tree, budget } satisfies GatewayControl);
  }

  /** The tree's budget as last set; undefined: none. */
  budgetOf(tree: string): Budget | undefined {
    return this.#budgets.get(tree);
  }

  /** Tenants' weights in each endpoint's fair share; kept for a restarted gateway. */
  weigh(weights: Record<string, number>): void {
    this.#weights = weights;
    this.#worker.postMessage({ type: "weights", weights });
  }

  /** Told after the gateway was started again: live sessions need new ports. */
  onRestart(listener: () => void): void {
    this.#restartListeners.push(listener);
  }

  /** Each provider endpoint's scheduler as the gateway last reported it. */
  endpoints(): readonly EndpointStatus[] {
    return this.#endpoints;
  }

  /** Told of each report of the gateway's endpoints (the metrics count refusals and waits from them). */
  onReport(listener: (report: EndpointsReport) => void): void {
    this.#reportListeners.push(listener);
  }

  async close(): Promise<void> {
    this.#closing = true;
    await this.#worker.terminate();
  }

  #spawn(): Worker {
    const worker = new Worker(GATEWAY_ENTRY, { env: process.env });
    worker.postMessage({ type: "models", models: this.#models });
    worker.postMessage({ type: "weights", weights: this.#weights });
    for (const [tree, budget] of this.#budgets) worker.postMessage({ type: "budget", tree, budget });
    worker.on("message", (message: unknown) => this.#relay(message));
    worker.on("error", (error) => this.#log("error", "the model gateway failed", { err: String(error) }));
    worker.on("exit", (code) => {
      if (this.#closing || worker !== this.#worker) return;
      this.#log("error", "the model gateway ended: started again; requests in flight fail and are retried", { code });
      this.#worker = this.#spawn();
      for (const listener of this.#restartListeners) listener();
    });
    return worker;
  }

  /** A log line or an endpoints report from the gateway's thread, checked before it is used. */
  #relay(message: unknown): void {
    if (typeof message !== "object" || message === null) return;
    if ((message as { type?: unknown }).type === "endpoints") return this.#report(message);
    const { type, level, msg, data } = message as { type?: unknown; level?: unknown; msg?: unknown; data?: unknown };
    if (type !== "log_line" || typeof level !== "string" || !LEVELS.has(level) || typeof msg !== "string") return;
    this.#log(
      level as "debug" | "info" | "warn" | "error",
      msg,
      typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {},
    );
  }

  #report(message: unknown): void {
    const report = EndpointsReport.safeParse(message);
    if (!report.success)
      return this.#log("error", "malformed endpoints report from the model gateway dropped", {
        error: report.error.message,
      });
    this.#endpoints = report.data.endpoints;
    for (const listener of this.#reportListeners) listener(report.data);
  }
}
