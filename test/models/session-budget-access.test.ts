// Who may set a session's budget (_host/set_budget): its owner, a controller, the operator. An observer is refused
// OBSERVER_ONLY and nothing changes; another tenant's session is answered as an unknown one.
import { afterAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { SET_BUDGET_METHOD } from "../../src/protocol/budget.js";
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

it("owner, controller and operator set it; an observer gets OBSERVER_ONLY; another tenant, unknown session", async () => {
  server = await OpenAiTestServer.start();
  const tokens = tokensFile(["alpha", "beta", "ops"], ["ops"]);
  host = await startRemoteHost([...server.hostArgs("test-model"), "--tokens-file", tokens.path]);
  const [owner, observer, controller, other, ops] = await Promise.all(
    ["alpha", "alpha", "alpha", "beta", "ops"].map((tenant) =>
      connectHost(host!.wsUrl, { token: tokens.tokens[tenant]! }),
    ),
  );
  clients.push(owner!, observer!, controller!, other!, ops!);
  const { sessionId } = await owner!.newSession(tempDir());
  const set = (client: HostClient, tokens: number) => client.request(SET_BUDGET_METHOD, { sessionId, tokens });
  await expect(set(owner!, 10)).resolves.toEqual({ budget: { tokens: 10 } });
  await observer!.attach(sessionId, { role: "observer" });
  await expect(set(observer!, 1_000)).rejects.toMatchObject({ code: -32600, data: { reason: "OBSERVER_ONLY" } });
  await controller!.attach(sessionId, { role: "controller" });
  await expect(set(controller!, 20)).resolves.toEqual({ budget: { tokens: 20 } });
  await expect(set(other!, 1_000)).rejects.toMatchObject({ data: { reason: "UNKNOWN_SESSION" } });
  await expect(set(ops!, 30)).resolves.toEqual({ budget: { tokens: 30 } });
  await expect(owner!.request(SET_BUDGET_METHOD, { sessionId, tokens: -1 })).rejects.toMatchObject({
    code: -32602,
    data: { reason: "INVALID_PARAMS", field: "tokens" },
  });
});
