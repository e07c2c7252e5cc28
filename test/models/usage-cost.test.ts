// --model-price: usage_update carries the session's cost so far, { amount, currency: "USD" }, from the tokens the
// provider reported (prompt tokens from its cache at the cached price); without a price, no cost.
import { afterEach, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

const hosts: TestHost[] = [];
const servers: OpenAiTestServer[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.dispose();
  for (const server of servers.splice(0)) await server.close();
});

const costs = (updates: { sessionUpdate: string }[]) =>
  updates.flatMap((update) => (update.sessionUpdate === "usage_update" ? [(update as { cost?: unknown }).cost] : []));

it("usage_update's cost is the session's, at the model's price; none without one", async () => {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const usage = {
    prompt_tokens: 1_000_000,
    completion_tokens: 250_000,
    prompt_tokens_details: { cached_tokens: 400_000 },
  };
  const priced = await startHost([...server.hostArgs("test-model"), "--model-price", "2,0.5,8"]);
  hosts.push(priced);
  const { sessionId } = await priced.client.newSession(tempDir());
  server.enqueue({ text: "one", usage }, { text: "two", usage });
  expect(costs((await priced.client.prompt(sessionId, "one")).updates)).toEqual([{ amount: 3.4, currency: "USD" }]);
  expect(costs((await priced.client.prompt(sessionId, "two")).updates)).toEqual([{ amount: 6.8, currency: "USD" }]);
  const unpriced = await startHost(server.hostArgs("test-model"));
  hosts.push(unpriced);
  const other = await unpriced.client.newSession(tempDir());
  server.enqueue({ text: "three", usage });
  expect(costs((await unpriced.client.prompt(other.sessionId, "three")).updates)).toEqual([undefined]);
});
