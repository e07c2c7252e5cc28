// A client's system prompt through real hosts on both stores, read where it ends up: the system message of the
// OpenAI-compatible provider's requests (a local test server records them). append adds it to the host's own
// instructions, override replaces them; it is durable (a restarted host sends it), replaced only by an explicit new one
// (load, resume, fork), and a fork without one keeps its source's. What the host cannot apply is refused with -32602.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostsPerTest, startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { postgresPerFile } from "../support/postgres.js";

const cluster = postgresPerFile();

let server: OpenAiTestServer;
const hosts = hostsPerTest();

beforeAll(async () => {
  server = await OpenAiTestServer.start();
}, 60_000);
afterAll(async () => {
  await server?.close();
});

const STORES = [
  { name: "state dir", args: async () => ["--state-dir", tempDir("ash-state-")] },
  {
    name: "PostgreSQL",
    args: async () => ["--store", await cluster.database(), "--lease-ms", "1000", "--state-dir", tempDir("ash-state-")],
  },
];

async function start(args: string[]): Promise<TestHost> {
  const host = await startHost([...args, ...server.hostArgs("test-model")]);
  hosts.push(host);
  return host;
}

async function stop(host: TestHost): Promise<void> {
  hosts.splice(hosts.indexOf(host), 1);
  await host.dispose();
  expect(host.violations).toEqual([]);
}

/** The system message of the request a prompt makes. */
async function systemMessageOf(host: TestHost, sessionId: string, text: string): Promise<string> {
  const count = server.requests.length;
  await host.client.prompt(sessionId, text);
  const request = server.requests.slice(count).find((recorded) => recorded.lastUserText === text);
  const first = request?.body.messages[0];
  expect(first?.role).toBe("system");
  return String(first?.content);
}

const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: { code?: number; message?: string }) => error,
  );

describe.each(STORES)("system prompts on the $name", (store) => {
  it("append and override reach the model; a new one on load, resume or fork replaces it; none keeps it, across a restart", async () => {
    const args = await store.args();
    const host = await start(args);
    const cwd = tempDir();
    const plain = (await host.client.newSession(cwd)).sessionId;
    const own = await systemMessageOf(host, plain, "plain");
    expect(own).toContain(`You are a coding agent working in the directory ${cwd}.`);

    const appended = (await host.client.newSession(cwd, { systemPrompt: "Answer in French." })).sessionId;
    expect(await systemMessageOf(host, appended, "bonjour")).toBe(`${own}\n\nAnswer in French.`);
    const overridden = (
      await host.client.newSession(cwd, {
        systemPrompt: {
          mode: "override",
          content: [
            { type: "text", text: "You are a terse reviewer." },
            { type: "text", text: "Say only LGTM." },
          ],
        },
      })
    ).sessionId;
    expect(await systemMessageOf(host, overridden, "review this")).toBe("You are a terse reviewer.\n\nSay only LGTM.");

    // A live session given a new one on load: replaced from its next request on.
    await host.client.load(appended, cwd, {
      systemPrompt: { mode: "override", content: [{ type: "text", text: "Réponds en français." }] },
    });
    expect(await systemMessageOf(host, appended, "encore")).toBe("Réponds en français.");
    // A fork keeps its source's, unless it is given one.
    const keeps = await host.client.fork(appended, cwd);
    expect(await systemMessageOf(host, keeps.sessionId, "dans la copie")).toBe("Réponds en français.");
    const replaces = await host.client.fork(appended, cwd, { systemPrompt: "Answer in German." });
    expect(await systemMessageOf(host, replaces.sessionId, "auf Deutsch")).toBe(`${own}\n\nAnswer in German.`);

    await stop(host);
    const again = await start(args);
    // Resumed without one: each keeps the last one it was given.
    for (const [sessionId, expected] of [
      [appended, "Réponds en français."],
      [overridden, "You are a terse reviewer.\n\nSay only LGTM."],
      [keeps.sessionId, "Réponds en français."],
      [replaces.sessionId, `${own}\n\nAnswer in German.`],
      [plain, own],
    ] as const) {
      await again.client.resume(sessionId, cwd);
      expect(await systemMessageOf(again, sessionId, `after the restart ${sessionId}`)).toBe(expected);
    }
    // A stored session resumed with a new one: replaced, and durable again.
    await again.client.close(plain);
    await again.client.resume(plain, cwd, { systemPrompt: "Be brief." });
    expect(await systemMessageOf(again, plain, "briefly")).toBe(`${own}\n\nBe brief.`);
    await stop(again);
    const third = await start(args);
    await third.client.resume(plain, cwd);
    expect(await systemMessageOf(third, plain, "still brief")).toBe(`${own}\n\nBe brief.`);
  });

  it("refuses a mode or content it cannot apply, and an empty prompt, with -32602", async () => {
    const host = await start(await store.args());
    const cwd = tempDir();
    const refused = (systemPrompt: unknown) =>
      rejection(host.client.request("session/new", { cwd, mcpServers: [], systemPrompt }));
    expect(await refused({ mode: "_prepend", content: [{ type: "text", text: "x" }] })).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS" }),
    });
    expect(await refused({ mode: "append", content: [] })).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS" }),
    });
    expect(
      await refused({ mode: "append", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }] }),
    ).toMatchObject({ code: -32602, data: expect.objectContaining({ reason: "INVALID_PARAMS" }) });
    expect(await refused({ mode: "override", content: [{ type: "text", text: "  " }] })).toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS" }),
    });
    // null and absent are the same: the host's own instructions.
    const { sessionId } = await host.client.request<{ sessionId: string }>("session/new", {
      cwd,
      mcpServers: [],
      systemPrompt: null,
    });
    expect(await systemMessageOf(host, sessionId, "nothing given")).toContain("You are a coding agent");
  });
});
