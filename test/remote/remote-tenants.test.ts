// Two tenants on one host: B cannot see, list, prompt, load, resume, close or delete A's session; every answer B gets
// is the one a session that does not exist gets, and none of A's updates reach B's connection.
import { randomUUID } from "node:crypto";
import type { SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type HostClient } from "../../src/client/index.js";
import { tempDir } from "../support/host.js";
import { answerWithout, startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { connectHost } from "../support/checked-host.js";

let host: RemoteHost;
let a: HostClient;
let b: HostClient;
const seenByB: SessionNotification[] = [];

beforeAll(async () => {
  const tokens = tokensFile(["tenant-a", "tenant-b"]);
  host = await startRemoteHost(["--tokens-file", tokens.path]);
  a = await connectHost(host.wsUrl, { token: tokens.tokens["tenant-a"]! });
  b = await connectHost(host.httpUrl, { token: tokens.tokens["tenant-b"]! });
  b.onAnyUpdate((notification) => seenByB.push(notification));
});
afterAll(async () => {
  await a.dispose();
  await b.dispose();
  expect(await host.stop()).toBe(0);
});

it("B's answers about A's session are exactly those about a session that does not exist", async () => {
  const cwd = tempDir();
  const { sessionId: mine } = await a.newSession(cwd);
  expect((await a.prompt(mine, "secret of tenant a")).text).toBe("You said: secret of tenant a");
  const nobody = randomUUID();

  const requests: Array<[string, (id: string) => Promise<unknown>]> = [
    ["prompt", (id) => b.prompt(id, "let me in")],
    ["set_mode", (id) => b.setMode(id, "auto")],
    ["set_config_option", (id) => b.setConfigOption(id, "model", "scripted")],
    ["load", (id) => b.load(id, cwd)],
    ["resume", (id) => b.resume(id, cwd)],
  ];
  for (const [name, request] of requests) {
    const theirs = await answerWithout(request(mine), mine);
    const none = await answerWithout(request(nobody), nobody);
    expect({ name, answer: theirs }).toEqual({ name, answer: none });
    expect(theirs).toHaveProperty("code");
  }
  // close and delete of an unknown session succeed and change nothing: so do they for A's session.
  await b.cancel(mine);
  expect(await answerWithout(b.close(mine), mine)).toEqual(await answerWithout(b.close(nobody), nobody));
  expect(await answerWithout(b.delete(mine), mine)).toEqual(await answerWithout(b.delete(nobody), nobody));

  const listed = await b.list();
  expect(listed.sessions.map((session) => session.sessionId)).not.toContain(mine);
  expect((await b.list({ cwd })).sessions).toEqual([]);

  // A's session is untouched, still A's, and A lists it.
  expect((await a.prompt(mine, "still mine")).text).toBe("You said: still mine");
  expect((await a.list()).sessions.map((session) => session.sessionId)).toContain(mine);
  expect(seenByB).toEqual([]);
});

it("each tenant lists only its own sessions, and A's updates never reach B", async () => {
  const cwd = tempDir();
  const { sessionId: ofA } = await a.newSession(cwd);
  const { sessionId: ofB } = await b.newSession(cwd);
  await Promise.all([a.prompt(ofA, "from a"), b.prompt(ofB, "from b")]);
  const listedByA = (await a.list({ cwd })).sessions.map((session) => session.sessionId);
  const listedByB = (await b.list({ cwd })).sessions.map((session) => session.sessionId);
  expect(listedByA).toEqual([ofA]);
  expect(listedByB).toEqual([ofB]);
  expect(new Set(seenByB.map((notification) => notification.sessionId))).toEqual(new Set([ofB]));
  // A deletes its own: gone for A too.
  await a.delete(ofA);
  expect((await a.list({ cwd })).sessions).toEqual([]);
});
