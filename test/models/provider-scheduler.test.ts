// Many sessions, one provider with limits (test/support/provider-emulator.ts): the model gateway's scheduler sends a
// request only when the endpoint has room, waits out a 429 for every session at once, and never fails a turn for one.
import { afterEach, expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { ProviderEmulator } from "../support/provider-emulator.js";

const hosts = hostsPerTest();
const emulators: ProviderEmulator[] = [];
afterEach(async () => {
  for (const emulator of emulators.splice(0)) await emulator.close();
});

async function emulator(options: Parameters<typeof ProviderEmulator.start>[0]): Promise<ProviderEmulator> {
  const started = await ProviderEmulator.start(options);
  emulators.push(started);
  return started;
}

async function host(args: string[]): Promise<TestHost> {
  const started = await startHost(args);
  hosts.push(started);
  return started;
}

/** Every session prompts `turns` times, one turn after another; resolves with how many turns failed. */
async function runTurns(target: TestHost, sessions: number, turns: number): Promise<number> {
  const ids = await Promise.all(
    Array.from({ length: sessions }, async () => (await target.client.newSession(tempDir())).sessionId),
  );
  let failed = 0;
  await Promise.all(
    ids.map(async (id, index) => {
      for (let turn = 0; turn < turns; turn++) {
        const text = `session ${index} turn ${turn}`;
        try {
          expect((await target.client.prompt(id, text)).text).toBe(`[emulated] you said: ${text}`);
        } catch {
          failed++;
        }
      }
    }),
  );
  return failed;
}

it(
  "100 sessions × 3 turns on a provider that takes 8 at once (429 with Retry-After: 1 past it): no turn fails, at most 5% refused",
  { timeout: 240_000 },
  async () => {
    const provider = await emulator({
      concurrency: 8,
      retryAfter: { seconds: 1 },
      firstTokenMs: 20,
      chunks: 4,
      chunkMs: 5,
    });
    // No retries at all: a 429 must never be what a turn's retry budget pays for.
    const target = await host([...provider.hostArgs(), "--model-retries", "0"]);
    expect(await runTurns(target, 100, 3)).toBe(0);
    expect(provider.completed).toBe(300);
    expect(provider.peakInFlight).toBeLessThanOrEqual(8);
    expect(provider.refused).toBeLessThanOrEqual(0.05 * provider.received);
    const [endpoint] = (await target.client.status({ workerFigures: false })).endpoints;
    expect(endpoint).toMatchObject({ model: "emulated", cap: null, inFlight: 0, queued: 0, refused: provider.refused });
    expect(endpoint!.sent).toBe(provider.received);
  },
);

it(
  "a 429 without any header is waited out with the scheduler's backoff: no turn fails",
  { timeout: 120_000 },
  async () => {
    const provider = await emulator({ concurrency: 2, firstTokenMs: 10, chunks: 2 });
    const target = await host([...provider.hostArgs(), "--model-retries", "0"]);
    expect(await runTurns(target, 12, 2)).toBe(0);
    expect(provider.completed).toBe(24);
    expect(provider.refused).toBeGreaterThan(0);
  },
);

it(
  "x-ratelimit-remaining-requests is respected before sending: no turn fails, at most 5% refused",
  { timeout: 120_000 },
  async () => {
    const provider = await emulator({ requestsPerWindow: 10, windowMs: 1_000, firstTokenMs: 5, chunks: 2 });
    const target = await host([...provider.hostArgs(), "--model-retries", "0"]);
    expect(await runTurns(target, 20, 2)).toBe(0);
    expect(provider.completed).toBe(40);
    expect(provider.refused).toBeLessThanOrEqual(0.05 * provider.received);
  },
);

it("--model-concurrency holds in flight at its value on a provider that never refuses and slows with load", async () => {
  const provider = await emulator({ held: true, slowdownPerInFlightMs: 5, chunks: 2 });
  const target = await host([...provider.hostArgs(), "--model-concurrency", "3"]);
  const ids = await Promise.all(
    Array.from({ length: 10 }, async () => (await target.client.newSession(tempDir())).sessionId),
  );
  const turns = ids.map((id, index) => target.client.prompt(id, `held ${index}`));
  // Three at the provider and seven in the gateway's queue: every request is in the host, and the provider has
  // three of them.
  await provider.until((p) => p.inFlight === 3);
  for (;;) {
    const [endpoint] = (await target.client.status({ workerFigures: false })).endpoints;
    if (endpoint && endpoint.queued === 7) {
      expect(endpoint).toMatchObject({ window: 3, cap: 3, inFlight: 3 });
      break;
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  expect(provider.received).toBe(3);
  provider.release();
  const answers = await Promise.all(turns);
  expect(answers.map((answer) => answer.text)).toEqual(ids.map((_, index) => `[emulated] you said: held ${index}`));
  expect(provider.peakInFlight).toBe(3);
  expect(provider.refused).toBe(0);
});

it("a request that finds no room within --model-queue-timeout-ms fails its turn PROVIDER_BUSY; the session goes on", async () => {
  const provider = await emulator({ held: true, chunks: 1 });
  const target = await host([...provider.hostArgs(), "--model-concurrency", "1", "--model-queue-timeout-ms", "200"]);
  const first = (await target.client.newSession(tempDir())).sessionId;
  const second = (await target.client.newSession(tempDir())).sessionId;
  const holding = target.client.prompt(first, "holds the only place");
  await provider.until((p) => p.inFlight === 1);
  await expect(target.client.prompt(second, "waits")).rejects.toMatchObject({
    code: -32603,
    data: expect.objectContaining({ reason: "PROVIDER_BUSY" }),
    message: expect.stringContaining("--model-queue-timeout-ms"),
  });
  expect(provider.received).toBe(1);
  provider.release();
  expect((await holding).text).toBe("[emulated] you said: holds the only place");
  // The failed turn's message stays in the conversation: the model sees it before the new one.
  expect((await target.client.prompt(second, "again")).text).toMatch(/^\[emulated\] you said: waits\s+again$/);
  const [endpoint] = (await target.client.status({ workerFigures: false })).endpoints;
  expect(endpoint).toMatchObject({ timedOut: 1, refused: 0 });
});

it.each([true, false])(
  "a request waiting for room is a notice to a client that advertised session.notices (%s), and to no other",
  async (notices) => {
    const provider = await emulator({ held: true, chunks: 1 });
    const target = await startHost([...provider.hostArgs(), "--model-concurrency", "1"], "deny", undefined, {
      notices,
    });
    hosts.push(target);
    const first = (await target.client.newSession(tempDir())).sessionId;
    const second = (await target.client.newSession(tempDir())).sessionId;
    const holding = target.client.prompt(first, "holds the only place");
    await provider.until((p) => p.inFlight === 1);
    const waiting = target.client.prompt(second, "waits for it");
    for (;;) {
      const [endpoint] = (await target.client.status({ workerFigures: false })).endpoints;
      if (endpoint?.queued === 1) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    provider.release();
    await holding;
    const shown = (await waiting).updates.filter((update) => update.sessionUpdate === "notice");
    if (!notices) return expect(shown).toEqual([]);
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({
      severity: "info",
      title: "Waiting for the model provider",
      _meta: { "acp-session-host": { waitingFor: "window", until: null } },
    });
  },
);
