// A copy-on-write workspace asked of a host that makes none is refused, never answered with a session that shares
// the directory (issue 66): session/new and session/fork alike, and no session is made.
import { expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir } from "../support/host.js";

const hosts = hostsPerTest();
const refused = {
  code: -32602,
  data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "_meta.acp-session-host.workspace" }),
};

it("session/new and session/fork with _meta.acp-session-host.workspace are refused and make no session", async () => {
  const host = await startHost();
  hosts.push(host);
  const cwd = tempDir();
  const _meta = { "acp-session-host": { workspace: { from: cwd } } };
  await expect(host.client.request("session/new", { cwd, mcpServers: [], _meta })).rejects.toMatchObject(refused);
  const { sessionId } = await host.client.newSession(cwd);
  await host.client.prompt(sessionId, "hello");
  await expect(host.client.request("session/fork", { sessionId, cwd, mcpServers: [], _meta })).rejects.toMatchObject(
    refused,
  );
  expect((await host.client.list()).sessions.map((session) => session.sessionId)).toEqual([sessionId]);
});
