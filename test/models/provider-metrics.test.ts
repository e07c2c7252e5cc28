// The provider endpoints in Prometheus: the window, in flight and queue depth as gauges, refusals counted, and how long
// each request waited for room, by model; the same figures as _host/status's endpoints.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir } from "../support/host.js";
import { ProviderEmulator } from "../support/provider-emulator.js";
import { waitFor } from "../support/tools.js";

interface Family {
  name: string;
  metrics: Array<{ labels?: Record<string, string>; value?: string; count?: string }>;
}

const hosts = hostsPerTest();
let provider: ProviderEmulator | undefined;
afterEach(async () => {
  await provider?.close();
});

it("refusals, waits, window and queue of an endpoint are metrics, as _host/status has them", async () => {
  provider = await ProviderEmulator.start({ concurrency: 1, retryAfter: { ms: 20 }, held: true, chunks: 1 });
  const host = await startHost([...provider.hostArgs(), "--metrics-listen", "127.0.0.1:0", "--model-retries", "0"]);
  hosts.push(host);
  const url = await waitFor("the metrics URL", () => /"url":"(http:[^"]+\/metrics)"/.exec(host.stderr())?.[1]);
  const ids = await Promise.all([0, 1, 2].map(async () => (await host.client.newSession(tempDir())).sessionId));
  const turns = ids.map((id, index) => host.client.prompt(id, `turn ${index}`));
  // The learned window starts above the provider's one place: the requests sent past it are refused, and wait.
  await provider.until((p) => p.inFlight === 1 && p.refused >= 1);
  provider.release();
  await Promise.all(turns);
  const [endpoint] = (await host.client.status({ workerFigures: false })).endpoints;
  const families = await waitFor("the refusals and waits in the metrics", async () => {
    const parsed = parsePrometheusTextFormat(await (await fetch(url)).text()) as Family[];
    const first = (name: string) => parsed.find((f) => f.name === name)?.metrics[0];
    const refusals = Number(first("acp_session_host_provider_refusals_total")?.value);
    const waits = Number(first("acp_session_host_provider_wait_seconds")?.count);
    return refusals === provider!.refused && waits === provider!.received ? parsed : undefined;
  });
  const metric = (name: string) => families.find((f) => f.name === name)?.metrics[0];
  expect(metric("acp_session_host_provider_refusals_total")?.labels).toEqual({ model: "emulated" });
  expect(endpoint!.refused).toBe(provider.refused);
  expect(Number(metric("acp_session_host_provider_window")?.value)).toBe(endpoint!.window);
  expect(Number(metric("acp_session_host_provider_queue_depth")?.value)).toBe(0);
  expect(Number(metric("acp_session_host_provider_in_flight")?.value)).toBe(0);
  // One wait observed per request sent, refused ones' second sends included.
  expect(Number(metric("acp_session_host_provider_wait_seconds")?.count)).toBe(provider.received);
});
