// The provider's prompt cache is keyed per tenant, never per session: the sessions of one tenant send one
// prompt_cache_key (DeepSeek's user_id with its preset), another tenant another, and the key does not name the tenant.
import { afterAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectHost } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";

const clients: HostClient[] = [];
let host: RemoteHost | undefined;
let server: OpenAiTestServer | undefined;
afterAll(async () => {
  for (const client of clients) await client.dispose();
  await host?.stop();
  await server?.close();
});

it("one key per tenant, the same for all its sessions, another for another tenant's", async () => {
  server = await OpenAiTestServer.start();
  const tokens = tokensFile(["tenant-a", "tenant-b"]);
  host = await startRemoteHost([...server.hostArgs("test-model"), "--tokens-file", tokens.path]);
  const [a, b] = await Promise.all(
    ["tenant-a", "tenant-b"].map((tenant) => connectHost(host!.wsUrl, { token: tokens.tokens[tenant]! })),
  );
  clients.push(a!, b!);
  const keyOf = async (client: HostClient, text: string) => {
    const { sessionId } = await client.newSession(tempDir());
    await client.prompt(sessionId, text);
    const request = server!.requests.find((recorded) => recorded.lastUserText === text)!;
    expect(request.body).not.toHaveProperty("user_id");
    return request.body.prompt_cache_key;
  };
  const first = await keyOf(a!, "a one");
  const second = await keyOf(a!, "a two");
  const other = await keyOf(b!, "b one");
  expect(typeof first).toBe("string");
  expect(second).toBe(first);
  expect(other).not.toBe(first);
  expect(String(first)).not.toContain("tenant-a");
});
