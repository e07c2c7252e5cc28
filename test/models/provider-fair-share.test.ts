// Two tenants on one provider endpoint: tenant B's ten sessions, prompting while tenant A's ninety wait for room, get
// their share of it (every other request), not the places after A's ninety. Asserted by the order in which the
// provider admitted the requests, never by time.
import { afterAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { ProviderEmulator } from "../support/provider-emulator.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";

const clients: HostClient[] = [];
let host: RemoteHost | undefined;
let provider: ProviderEmulator | undefined;
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await host?.stop();
  await provider?.close();
});

async function queued(operator: HostClient, count: number): Promise<void> {
  for (;;) {
    const [endpoint] = (await operator.status({ workerFigures: false, pageSize: 1 })).endpoints;
    if (endpoint && endpoint.queued === count) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

it(
  "B's 10 sessions started while A's 90 wait all finish, admitted among the first places, not after A's",
  { timeout: 180_000 },
  async () => {
    provider = await ProviderEmulator.start({ held: true, chunks: 1 });
    const tokens = tokensFile(["tenant-a", "tenant-b", "ops"], ["ops"]);
    host = await startRemoteHost([...provider.hostArgs(), "--tokens-file", tokens.path, "--model-concurrency", "4"]);
    const [a, b, operator] = await Promise.all(
      ["tenant-a", "tenant-b", "ops"].map((tenant) => connectHost(host!.wsUrl, { token: tokens.tokens[tenant]! })),
    );
    clients.push(a!, b!, operator!);
    const open = (client: HostClient, count: number) =>
      Promise.all(Array.from({ length: count }, async () => (await client.newSession(tempDir())).sessionId));
    const aIds = await open(a!, 90);
    const bIds = await open(b!, 10);
    const aTurns = aIds.map((id, index) => a!.prompt(id, `a${index}`));
    await provider.until((p) => p.inFlight === 4);
    await queued(operator!, 86);
    const bTurns = bIds.map((id, index) => b!.prompt(id, `b${index}`));
    await queued(operator!, 96);
    provider.release();
    const answers = await Promise.all([...aTurns, ...bTurns]);
    expect(answers.every((answer) => answer.stopReason === "end_turn")).toBe(true);
    expect(provider.admitted).toHaveLength(100);
    // Four of A's were in flight; from then on the two tenants took turns, so B's ten are among the first 4 + 2 × 10 + 1.
    const places = provider.admitted.flatMap((text, place) => (text.startsWith("b") ? [place] : []));
    expect(places).toHaveLength(10);
    expect(Math.max(...places)).toBeLessThan(25);
  },
);
