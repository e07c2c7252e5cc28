// Budgets that pause (issue 63): a session tree's token budget stops the model request that would pass it before it is
// sent (asserted at the model server: it never arrives); the turn ends max_tokens with
// `_meta["acp-session-host"].reason: "BUDGET_REACHED"`, the session stays open, and `_host/set_budget` lets it go on.
// A child's spending counts against its parent's tree; budget and spend are in the session's log across a restart.
import { afterEach, expect, it } from "vitest";
import { SET_BUDGET_METHOD } from "../../src/protocol/budget.js";
import { tempDir } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { startRawHost, type RawHost } from "../support/raw-host.js";

const BUDGET = 100_000;
/** What a reply costs: exactly the budget, so the next request would pass it. */
const SPENDS_ALL = { usage: { prompt_tokens: 90_000, completion_tokens: 10_000 } };

const hosts: RawHost[] = [];
const servers: OpenAiTestServer[] = [];
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.close();
  for (const server of servers.splice(0)) await server.close();
});

interface Rpc {
  call(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
}

async function host(server: OpenAiTestServer, stateDir: string, extra: string[] = []): Promise<Rpc> {
  const raw = await startRawHost(["serve", "--state-dir", stateDir, ...server.hostArgs("test-model"), ...extra]);
  hosts.push(raw);
  let next = 1;
  const rpc: Rpc = {
    async call(method, params) {
      const id = next++;
      raw.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      return raw.next((message) => message.id === id && !("method" in message));
    },
  };
  await rpc.call("initialize", { protocolVersion: 1, clientCapabilities: {} });
  return rpc;
}

async function newSession(rpc: Rpc, cwd: string, budget?: Record<string, number>): Promise<string> {
  const meta = budget ? { _meta: { "acp-session-host": { budget } } } : {};
  const answer = await rpc.call("session/new", { cwd, mcpServers: [], ...meta });
  return (answer.result as { sessionId: string }).sessionId;
}

async function prompt(rpc: Rpc, sessionId: string, text: string) {
  const answer = await rpc.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  expect(answer.error).toBeUndefined();
  return answer.result as { stopReason: string; _meta?: Record<string, { reason?: string }> };
}

const reached = { stopReason: "max_tokens", _meta: { "acp-session-host": { reason: "BUDGET_REACHED" } } };

it("ends the turn before the request that would pass the budget, at once again, and goes on once it is raised", async () => {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const rpc = await host(server, tempDir("ash-state-"));
  const sessionId = await newSession(rpc, tempDir(), { tokens: BUDGET });
  server.enqueue({ text: "spent", ...SPENDS_ALL });
  expect(await prompt(rpc, sessionId, "one")).toMatchObject({ stopReason: "end_turn" });
  expect(server.requests).toHaveLength(1);
  expect(await prompt(rpc, sessionId, "two")).toMatchObject(reached);
  expect(await prompt(rpc, sessionId, "three")).toMatchObject(reached);
  expect(server.requests).toHaveLength(1);
  const raised = await rpc.call(SET_BUDGET_METHOD, { sessionId, tokens: 3 * BUDGET });
  expect(raised.result).toMatchObject({ budget: { tokens: 3 * BUDGET } });
  server.enqueue({ text: "on again", usage: { prompt_tokens: 10, completion_tokens: 2 } });
  const after = await prompt(rpc, sessionId, "four");
  expect(after.stopReason).toBe("end_turn");
  expect(after._meta?.["acp-session-host"]?.reason).toBeUndefined();
  expect(server.requests).toHaveLength(2);
});

it("--session-budget-tokens is the budget of a session that gives none", async () => {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const rpc = await host(server, tempDir("ash-state-"), ["--session-budget-tokens", String(BUDGET)]);
  const sessionId = await newSession(rpc, tempDir());
  server.enqueue({ text: "spent", ...SPENDS_ALL });
  expect(await prompt(rpc, sessionId, "one")).toMatchObject({ stopReason: "end_turn" });
  expect(await prompt(rpc, sessionId, "two")).toMatchObject(reached);
  expect(server.requests).toHaveLength(1);
});

it("a parent's budget covers its children: what a child spent stops the parent's next request", async () => {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const rpc = await host(server, tempDir("ash-state-"));
  const sessionId = await newSession(rpc, tempDir(), { tokens: BUDGET });
  server.enqueue(
    {
      toolCalls: [{ name: "spawn_agent", arguments: { prompt: "child task" } }],
      usage: { prompt_tokens: 10, completion_tokens: 2 },
    },
    { text: "child done", ...SPENDS_ALL },
  );
  expect(await prompt(rpc, sessionId, "parent task")).toMatchObject(reached);
  // The parent's request, then its child's; the parent's next (with the child's answer) was never sent.
  expect(server.requests.map((request) => request.lastUserText)).toEqual(["parent task", "child task"]);
});

/** A session that spent its whole budget on one host, resumed by the next on the same state dir once that one ended. */
async function spentThenRestarted() {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const stateDir = tempDir("ash-state-");
  const cwd = tempDir();
  const first = await host(server, stateDir);
  const sessionId = await newSession(first, cwd, { tokens: BUDGET });
  server.enqueue({ text: "spent", ...SPENDS_ALL });
  expect(await prompt(first, sessionId, "one")).toMatchObject({ stopReason: "end_turn" });
  await hosts.pop()!.close();
  const second = await host(server, stateDir);
  expect((await second.call("session/resume", { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
  return { server, stateDir, cwd, sessionId, second };
}

it("budget and spend are in the session's log: after a restart the session is still paused", async () => {
  const { server, stateDir, cwd, sessionId, second } = await spentThenRestarted();
  expect(await prompt(second, sessionId, "two")).toMatchObject(reached);
  expect(server.requests).toHaveLength(1);
  await second.call(SET_BUDGET_METHOD, { sessionId, tokens: 3 * BUDGET });
  expect(await prompt(second, sessionId, "three")).toMatchObject({ stopReason: "end_turn" });
  expect(server.requests).toHaveLength(2);
  // The raise is in the log too: a second restart does not pause the session again at session/new's budget.
  await hosts.pop()!.close();
  const third = await host(server, stateDir);
  expect((await third.call("session/resume", { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
  expect(await prompt(third, sessionId, "four")).toMatchObject({ stopReason: "end_turn" });
  expect(server.requests).toHaveLength(3);
});

it("a budget raised at once after a restart (its log told the gateway the old one) holds, and across the next restart", async () => {
  const { server, stateDir, cwd, sessionId, second } = await spentThenRestarted();
  await second.call(SET_BUDGET_METHOD, { sessionId, tokens: 3 * BUDGET });
  expect(await prompt(second, sessionId, "two")).toMatchObject({ stopReason: "end_turn" });
  await hosts.pop()!.close();
  const third = await host(server, stateDir);
  expect((await third.call("session/resume", { sessionId, cwd, mcpServers: [] })).error).toBeUndefined();
  expect(await prompt(third, sessionId, "three")).toMatchObject({ stopReason: "end_turn" });
  expect(server.requests).toHaveLength(3);
});

it("a costUsd budget, at the model's --model-price, pauses the same way", async () => {
  const server = await OpenAiTestServer.start();
  servers.push(server);
  const rpc = await host(server, tempDir("ash-state-"), ["--model-price", "1,1,1"]);
  // $1 a million tokens: the reply's 100,000 tokens cost the whole $0.10.
  const sessionId = await newSession(rpc, tempDir(), { costUsd: 0.1 });
  server.enqueue({ text: "spent", ...SPENDS_ALL });
  expect(await prompt(rpc, sessionId, "one")).toMatchObject({ stopReason: "end_turn" });
  expect(await prompt(rpc, sessionId, "two")).toMatchObject(reached);
  expect(server.requests).toHaveLength(1);
  await rpc.call(SET_BUDGET_METHOD, { sessionId, costUsd: 1 });
  expect(await prompt(rpc, sessionId, "three")).toMatchObject({ stopReason: "end_turn" });
  expect(server.requests).toHaveLength(2);
});
