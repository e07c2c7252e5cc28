// The model gateway's provider endpoints in Prometheus: window, in flight, queue depth and pause read when scraped;
// refusals, queue timeouts and the wait for room counted from the gateway's reports. Labelled by model: the host's
// configuration bounds the set.
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { ModelGateway } from "../../pool/gateway-thread.js";
import type { EndpointStatus } from "../../protocol/provider-endpoints.js";

export function registerProviderMetrics(registry: Registry, prefix: string, gateway: ModelGateway): void {
  const registers = [registry];
  const gauge = (name: string, help: string, value: (endpoint: EndpointStatus) => number) =>
    new Gauge({
      name: `${prefix}${name}`,
      help,
      labelNames: ["model"],
      registers,
      collect() {
        for (const endpoint of gateway.endpoints()) this.set({ model: endpoint.model }, value(endpoint));
      },
    });
  gauge(
    "provider_window",
    "Model requests an endpoint may have in flight now (--model-concurrency, or learned from its 429s)",
    (e) => e.window,
  );
  gauge("provider_in_flight", "Model requests in flight at an endpoint", (e) => e.inFlight);
  gauge("provider_queue_depth", "Model requests waiting for room at an endpoint", (e) => e.queued);
  gauge(
    "provider_paused_seconds",
    "Seconds until an endpoint paused by its provider (Retry-After, a rate limit at zero) sends again; 0: not paused",
    (e) => (e.pausedUntil === null ? 0 : Math.max(0, (Date.parse(e.pausedUntil) - Date.now()) / 1000)),
  );
  const refused = new Counter({
    name: `${prefix}provider_refusals_total`,
    help: "Model requests the provider refused with a 429 (each is sent again once the endpoint has room)",
    labelNames: ["model"],
    registers,
  });
  const timedOut = new Counter({
    name: `${prefix}provider_queue_timeouts_total`,
    help: "Model requests that waited past --model-queue-timeout-ms (their turn failed PROVIDER_BUSY)",
    labelNames: ["model"],
    registers,
  });
  const waits = new Histogram({
    name: `${prefix}provider_wait_seconds`,
    help: "How long a model request waited for room at its endpoint before it was sent",
    buckets: [0.001, 0.01, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300],
    registers,
  });
  const seen = new Map<string, { refused: number; timedOut: number }>();
  gateway.onReport((report) => {
    for (const endpoint of report.endpoints) {
      const key = `${endpoint.baseUrl}\n${endpoint.model}`;
      const before = seen.get(key) ?? { refused: 0, timedOut: 0 };
      const labels = { model: endpoint.model };
      // A restarted gateway counts from zero again: only growth is added.
      if (endpoint.refused > before.refused) refused.inc(labels, endpoint.refused - before.refused);
      if (endpoint.timedOut > before.timedOut) timedOut.inc(labels, endpoint.timedOut - before.timedOut);
      seen.set(key, { refused: endpoint.refused, timedOut: endpoint.timedOut });
    }
    for (const ms of report.waitsMs) waits.observe(ms / 1000);
  });
}
