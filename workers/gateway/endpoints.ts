// The gateway's endpoints: one scheduler per provider endpoint (base URL, model, key variable), shared by every session
// and kept across a new list of models (a model still listed keeps its endpoint's window and pause). What they say
// goes to the main thread at most once per turn of the event loop.
import type { ModelConfig } from "../../src/protocol/port.js";
import type { EndpointStatus, EndpointsReport } from "../../src/protocol/provider-endpoints.js";
import { EndpointScheduler } from "./endpoint-scheduler.js";
import type { GatewayLog } from "./model-client.js";

interface Endpoint {
  baseUrl: string;
  model: string;
  scheduler: EndpointScheduler;
}

export class Endpoints {
  readonly #post: (report: EndpointsReport) => void;
  readonly #log: GatewayLog;
  #endpoints = new Map<string, Endpoint>();
  #waitsMs: number[] = [];
  #reportQueued = false;
  #weights: Record<string, number> = {};

  constructor(post: (report: EndpointsReport) => void, log: GatewayLog) {
    this.#post = post;
    this.#log = log;
  }

  /** The scheduler for a model's endpoint; the list of models given last decides which exist. */
  configure(models: readonly ModelConfig[]): Map<string, EndpointScheduler> {
    const next = new Map<string, Endpoint>();
    const byModel = new Map<string, EndpointScheduler>();
    for (const model of models) {
      const key = JSON.stringify([model.baseUrl ?? "", model.model, model.apiKeyEnv ?? ""]);
      const endpoint = next.get(key) ??
        this.#endpoints.get(key) ?? {
          baseUrl: model.baseUrl ?? "",
          model: model.model,
          scheduler: new EndpointScheduler({
            cap: model.concurrency ?? null,
            queueTimeoutMs: model.queueTimeoutMs ?? 0,
            onChange: () => this.#changed(),
            weight: (tenant) => (tenant === null ? 1 : (this.#weights[tenant] ?? 1)),
            onRefused: ({ message, pauseMs, window }) =>
              this.#log(
                "warn",
                "the provider refused a request for its limits: the endpoint pauses, the request waits",
                {
                  model: model.model,
                  error: message,
                  pauseMs,
                  window,
                },
              ),
          }),
        };
      next.set(key, endpoint);
      byModel.set(model.model, endpoint.scheduler);
    }
    this.#endpoints = next;
    this.#changed();
    return byModel;
  }

  /** The tenants' weights from now on (the tokens file's). */
  weigh(weights: Record<string, number>): void {
    this.#weights = weights;
  }

  waited(ms: number): void {
    this.#waitsMs.push(ms);
    this.#changed();
  }

  #changed(): void {
    if (this.#reportQueued) return;
    this.#reportQueued = true;
    setImmediate(() => {
      this.#reportQueued = false;
      const waitsMs = this.#waitsMs;
      this.#waitsMs = [];
      this.#post({ type: "endpoints", endpoints: [...this.#endpoints.values()].map(status), waitsMs });
    });
  }
}

function status(endpoint: Endpoint): EndpointStatus {
  const figures = endpoint.scheduler.figures();
  return {
    baseUrl: endpoint.baseUrl,
    model: endpoint.model,
    window: figures.window,
    cap: figures.cap,
    inFlight: figures.inFlight,
    queued: figures.queued,
    pausedUntil: figures.pausedUntilMs === null ? null : new Date(figures.pausedUntilMs).toISOString(),
    sent: figures.sent,
    refused: figures.refused,
    timedOut: figures.timedOut,
  };
}
