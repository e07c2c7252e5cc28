// Two tenants on one listening host (tokens file, WebSocket), every message checked against the SDK's schema: tenant B
// never sees tenant A's forks or children. B's fork, status, set_title, archive, unarchive and load of A's session, of
// its fork and of its child get exactly the answers a session that does not exist gets; B's list never shows them; B's
// own spawn_agent cannot take A's child; and none of A's traffic (its children's included) reaches B.
import { randomUUID } from "node:crypto";
import type { SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { HostClient } from "../../src/client/index.js";
import { connectChecked } from "../support/checked-host.js";
import { tempDir } from "../support/host.js";
import { answerWithout, startRemoteHost, tokensFile, type RemoteHost } from "../support/remote-host.js";
import { script } from "../support/tools.js";

let host: RemoteHost;
let a: HostClient;
let b: HostClient;
const violations: string[] = [];
const seenByB: SessionNotification[] = [];

beforeAll(async () => {
  const tokens = tokensFile(["tenant-a", "tenant-b"]);
  host = await startRemoteHost(["--tokens-file", tokens.path]);
  a = await connectChecked(host.wsUrl, violations, { token: tokens.tokens["tenant-a"]! });
  b = await connectChecked(host.wsUrl, violations, { token: tokens.tokens["tenant-b"]! });
  b.onAnyUpdate((notification) => seenByB.push(notification));
});
afterAll(async () => {
  await a.dispose();
  await b.dispose();
  expect(await host.stop()).toBe(0);
});

it("B's answers about A's session, fork and child are those about a session that does not exist", async () => {
  const cwd = tempDir();
  const { sessionId: mine } = await a.newSession(cwd);
  const parentTurn = await a.prompt(
    mine,
    script({ tool: "spawn_agent", input: { prompt: "a's errand" } }, { say: "{{result}}" }),
  );
  const child = parentTurn.children[0]!.sessionId;
  const fork = (await a.fork(mine, cwd)).sessionId;
  await a.prompt(fork, "a's fork");
  const ids = [mine, child, fork];

  const requests: Array<[string, (id: string) => Promise<unknown>]> = [
    ["fork", (id) => b.fork(id, cwd)],
    ["status", (id) => b.status(id)],
    ["set_title", (id) => b.setTitle(id, "taken")],
    ["archive", (id) => b.archive(id)],
    ["unarchive", (id) => b.unarchive(id)],
    ["load", (id) => b.load(id, cwd)],
    ["prompt", (id) => b.prompt(id, "let me in")],
  ];
  for (const id of ids) {
    const nobody = randomUUID();
    for (const [name, request] of requests) {
      const theirs = await answerWithout(request(id), id);
      const none = await answerWithout(request(nobody), nobody);
      expect({ name, answer: theirs }).toEqual({ name, answer: none });
      expect(theirs).toHaveProperty("code");
    }
  }
  // B's own session cannot make A's child its own.
  const { sessionId: theirs } = await b.newSession(tempDir());
  const stolen = await b.prompt(
    theirs,
    script({ tool: "spawn_agent", input: { session: child, prompt: "work for b" } }, { say: "{{result}}" }),
  );
  const nobody = randomUUID();
  const unknown = await b.prompt(
    theirs,
    script({ tool: "spawn_agent", input: { session: nobody, prompt: "work for b" } }, { say: "{{result}}" }),
  );
  expect(stolen.text.replaceAll(child, "<id>")).toBe(unknown.text.replaceAll(nobody, "<id>"));

  // Nothing of A's in B's list or in B's traffic; A sees its three sessions, untouched.
  const listedByB = (await b.list({ archived: "include" })).sessions.map((session) => session.sessionId);
  expect(listedByB).toEqual([theirs]);
  expect(seenByB.every((notification) => notification.sessionId === theirs)).toBe(true);
  const listedByA = new Map((await a.list()).sessions.map((session) => [session.sessionId, session]));
  expect([...listedByA.keys()].sort()).toEqual([...ids].sort());
  expect(listedByA.get(mine)?.title).toBe(
    script({ tool: "spawn_agent", input: { prompt: "a's errand" } }, { say: "{{result}}" }).slice(0, 79) + "…",
  );
  expect(await a.status(child)).toBe("open");
  expect(violations).toEqual([]);
});
