// Prometheus metrics (--metrics-listen HOST:PORT, GET /metrics), with prom-client. Every name starts with
// acp_session_host_; no series is per session (the cardinality would grow with the sessions). Gauges are read from
// the host's own state when scraped; counters and histograms are fed by the sessions' lifecycle hooks.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { urlHost, type ListenAddress } from "../../remote/listen-address.js";
import type { OpsHost } from "./ops-host.js";
import { StateDirSize } from "../../store/dir/state-dir-size.js";
import { registerProviderMetrics } from "./provider-metrics.js";

const PREFIX = "acp_session_host_";

export class HostMetrics {
  readonly registry = new Registry();
  readonly #prompts: Counter<"stop_reason">;
  readonly #promptSeconds: Histogram;
  readonly #toolCalls: Counter<"kind" | "outcome">;
  readonly #toolSeconds: Histogram<"kind">;
  readonly #workerExits: Counter<"cause">;

  constructor(host: OpsHost) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX, eventLoopMonitoringPrecision: 10 });
    const sessionCounts = () => {
      let live = 0;
      let hibernated = 0;
      let busy = 0;
      for (const session of host.sessions.values()) {
        if (session.hibernated) hibernated++;
        else live++;
        if (session.busy) busy++;
      }
      return { live, hibernated, busy };
    };
    new Gauge({
      name: `${PREFIX}sessions`,
      help: "Sessions open in this host, by state (live: with a worker or getting one; busy: a prompt in flight); stored: every session in the state dir (as session/list's index has them)",
      labelNames: ["state"],
      registers,
      async collect() {
        const counts = sessionCounts();
        for (const [state, value] of Object.entries(counts)) this.set({ state }, value);
        const stored = await host.store.storedSessions();
        if (stored !== null) this.set({ state: "stored" }, stored);
      },
    });
    const stateDir = new StateDirSize(host.config.stateDir, host.logger);
    void stateDir.refresh();
    new Gauge({
      name: `${PREFIX}state_dir_bytes`,
      help: "Disk space the state dir's files take (measured in the background, at most once a minute; absent until the first measure)",
      registers,
      collect() {
        const bytes = stateDir.bytes();
        if (bytes !== null) this.set(bytes);
      },
    });
    new Gauge({
      name: `${PREFIX}workers`,
      help: "Session worker threads, by state (live: bound to a session; standby: started, waiting for one)",
      labelNames: ["state"],
      registers,
      collect() {
        const standby = host.pool.standby;
        this.set({ state: "standby" }, standby);
        this.set({ state: "live" }, Math.max(0, host.pool.liveThreads - standby));
      },
    });
    new Gauge({
      name: `${PREFIX}spawner_restarts`,
      help: "Times the spawner process died and was started again since the host started",
      registers,
      collect() {
        this.set(host.spawner?.restarts ?? 0);
      },
    });
    this.#prompts = new Counter({
      name: `${PREFIX}prompts_total`,
      help: "Prompts answered, by stop reason (error: answered with an error)",
      labelNames: ["stop_reason"],
      registers,
    });
    this.#promptSeconds = new Histogram({
      name: `${PREFIX}prompt_duration_seconds`,
      help: "From a prompt's arrival to its answer",
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600],
      registers,
    });
    this.#toolCalls = new Counter({
      name: `${PREFIX}tool_calls_total`,
      help: "Tool calls ended, by kind (execute: bash) and outcome",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.#toolSeconds = new Histogram({
      name: `${PREFIX}tool_call_duration_seconds`,
      help: "From a tool call's announcement to its final update, by kind (execute: bash)",
      labelNames: ["kind"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1, 5, 30, 120],
      registers,
    });
    this.#workerExits = new Counter({
      name: `${PREFIX}worker_exits_total`,
      help: "Session workers that ended while their session still had them, by cause (crashed; terminated: hard cancel)",
      labelNames: ["cause"],
      registers,
    });
    const modelRequests = new Counter({
      name: `${PREFIX}model_requests_total`,
      help: "Requests to the model (a retry is one of its own), by tenant (none: no tenant), model and outcome",
      labelNames: ["tenant", "model", "outcome"],
      registers,
    });
    const modelTokens = new Counter({
      name: `${PREFIX}model_tokens_total`,
      help: "Tokens the provider reported, by tenant, model and kind (input, output, cached: input served from its cache)",
      labelNames: ["tenant", "model", "kind"],
      registers,
    });
    new Gauge({
      name: `${PREFIX}trace_spans_dropped`,
      help: "Spans dropped since the host started because the trace export queue was full (tracing on)",
      registers,
      collect() {
        this.set(host.tracing?.dropped ?? 0);
      },
    });
    new Gauge({
      name: `${PREFIX}trace_spans_export_failed`,
      help: "Spans whose export failed since the host started (tracing on)",
      registers,
      collect() {
        this.set(host.tracing?.exportFailed ?? 0);
      },
    });
    if (host.gateway) registerProviderMetrics(this.registry, PREFIX, host.gateway);
    const hooks = host.sessionDeps.hooks;
    hooks.on("modelCallEnded", ({ tenant, model, outcome, tokens }) => {
      // Tenants come from the tokens file and models from the host's configuration: both label sets are bounded.
      const labels = { tenant: tenant ?? "none", model };
      modelRequests.inc({ ...labels, outcome });
      if (!tokens) return;
      modelTokens.inc({ ...labels, kind: "input" }, tokens.prompt);
      modelTokens.inc({ ...labels, kind: "output" }, tokens.completion);
      modelTokens.inc({ ...labels, kind: "cached" }, tokens.cached);
    });
    hooks.on("turnEnded", ({ outcome, seconds }) => {
      this.#prompts.inc({ stop_reason: outcome });
      this.#promptSeconds.observe(seconds);
    });
    hooks.on("toolCallEnded", ({ kind, failed, seconds }) => {
      this.#toolCalls.inc({ kind, outcome: failed ? "failed" : "completed" });
      this.#toolSeconds.observe({ kind }, seconds);
    });
    hooks.on("workerExited", ({ kind }) => this.#workerExits.inc({ cause: kind }));
  }
}

/** Serves GET /metrics; resolves with the URL it is bound to. */
export async function serveMetrics(
  metrics: HostMetrics,
  address: ListenAddress,
): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    if (request.method !== "GET" || request.url !== "/metrics") {
      response.writeHead(404).end();
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(address.port, address.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://${urlHost(address.host)}:${port}/metrics`, server };
}
