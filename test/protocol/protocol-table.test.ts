// The protocol table (docs/protocol.md) against a real host: every capability it names is one initialize advertises and every
// one advertised is named; every client → host method it lists is served, each called as a client would and its
// result (and what it did) checked, and every other ACP method is answered -32601 (method not found).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_METHODS, type NewSessionResponse, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cli-path.js";
import { transcript } from "../support/durable.js";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { script, waitFor } from "../support/tools.js";

let host: TestHost;
beforeAll(async () => {
  host = await startHost();
});
afterAll(async () => {
  await host.dispose();
  expect(host.violations).toEqual([]);
});

/** The rows of docs/protocol.md's table: each row's cells. */
function protocolRows(): string[][] {
  return readFileSync(join(REPO_ROOT, "docs", "protocol.md"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("| `"))
    .map((line) => line.split(" | ").map((cell) => cell.replace(/^\| /, "").replace(/ \|$/, "")));
}
const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]!);

it("names exactly the capabilities initialize advertises", () => {
  const advertised = host.client.initializeResponse.agentCapabilities!;
  const named = new Set(protocolRows().flatMap((row) => ticked(row[2] ?? "")));
  const sessionCapabilities = [...named]
    .filter((name) => name.startsWith("sessionCapabilities."))
    .map((name) => name.slice("sessionCapabilities.".length));
  expect(sessionCapabilities.sort()).toEqual(Object.keys(advertised.sessionCapabilities ?? {}).sort());
  expect(named.has("loadSession")).toBe(advertised.loadSession === true);
  expect(named.has("mcpCapabilities.http")).toBe(advertised.mcpCapabilities?.http === true);
  expect(named.has("mode.override")).toBe(advertised.sessionCapabilities?.systemPrompt?.mode?.override != null);
});

/** What the test sees of the session updates the host sends, by session. */
function updatesOf(sessionId: string): SessionUpdate[] {
  const updates: SessionUpdate[] = [];
  host.client.onSessionUpdate(sessionId, (update) => updates.push(update));
  return updates;
}

it("serves every method it lists, each with its real result, and no other", async () => {
  const listed = new Set(
    protocolRows()
      .filter((row) => row[1] === "client → host")
      .flatMap((row) => ticked(row[0]!))
      .filter((name) => /^[a-z_/]+$/.test(name) || name.startsWith("_host/")),
  );
  const call = <T = Record<string, unknown>>(method: string, params: unknown) => host.client.request<T>(method, params);
  const cwd = tempDir();
  let sessionId = "";
  let forkId = "";
  let model = "";
  let attachmentId = "";
  const status = async (id: string) => (await call<{ status: string }>("session/status", { sessionId: id })).status;
  const listedIds = async (params: Record<string, unknown> = {}) =>
    (await call<{ sessions: Array<{ sessionId: string; title?: string | null }> }>("session/list", params)).sessions;
  // In order: each builds on what the ones before made.
  const checks: Array<[string, () => Promise<void>]> = [
    [
      "initialize",
      async () =>
        expect(await call("initialize", { protocolVersion: 1, clientCapabilities: {} })).toMatchObject({
          protocolVersion: 1,
          agentInfo: { name: "acp-session-host" },
        }),
    ],
    ["authenticate", async () => expect(await call("authenticate", { methodId: "none" })).toEqual({})],
    [
      "session/new",
      async () => {
        const made = await call<NewSessionResponse>("session/new", { cwd, mcpServers: [] });
        expect(made.sessionId).toMatch(/^[0-9a-f-]{36}$/);
        expect(made.modes?.currentModeId).toBe("ask");
        sessionId = made.sessionId;
        const option = made.configOptions?.find((entry) => entry.id === "model");
        expect(option?.type).toBe("select");
        model = String((option as { currentValue: unknown }).currentValue);
      },
    ],
    [
      "session/prompt",
      async () => {
        const updates = updatesOf(sessionId);
        const answer = await call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] });
        expect(answer).toMatchObject({ stopReason: "end_turn" });
        expect(transcript(updates)).toContain("agent: You said: hello");
      },
    ],
    [
      "session/cancel",
      async () => {
        const running = call("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: script({ sleep_ms: 60_000 }, { say: "never" }) }],
        });
        await waitFor("the prompt in flight", async () => (await host.client.stats()).sessions.busy === 1);
        await host.client.cancel(sessionId);
        expect(await running).toMatchObject({ stopReason: "cancelled" });
      },
    ],
    [
      "session/set_mode",
      async () => {
        const updates = updatesOf(sessionId);
        expect(await call("session/set_mode", { sessionId, modeId: "read-only" })).toEqual({});
        await waitFor("the mode update", () =>
          updates.some((u) => u.sessionUpdate === "current_mode_update" && u.currentModeId === "read-only"),
        );
      },
    ],
    [
      "session/set_config_option",
      async () => {
        const answer = await call<{ configOptions: Array<{ id: string; currentValue?: unknown }> }>(
          "session/set_config_option",
          { sessionId, configId: "model", value: model },
        );
        expect(answer.configOptions.find((option) => option.id === "model")?.currentValue).toBe(model);
      },
    ],
    [
      "session/set_title",
      async () => {
        expect(await call("session/set_title", { sessionId, title: "the table" })).toMatchObject({
          title: "the table",
        });
      },
    ],
    [
      "session/list",
      async () => expect(await listedIds()).toContainEqual(expect.objectContaining({ sessionId, title: "the table" })),
    ],
    ["session/status", async () => expect(await status(sessionId)).toBe("open")],
    [
      "session/fork",
      async () => {
        forkId = (await call<{ sessionId: string }>("session/fork", { sessionId, cwd, mcpServers: [] })).sessionId;
        expect(forkId).not.toBe(sessionId);
        expect(await status(forkId)).toBe("open");
      },
    ],
    [
      "session/close",
      async () => {
        expect(await call("session/close", { sessionId: forkId })).toEqual({});
        expect(await status(forkId)).toBe("saved");
      },
    ],
    [
      "session/load",
      async () => {
        const updates = updatesOf(forkId);
        expect(await call("session/load", { sessionId: forkId, cwd, mcpServers: [] })).toMatchObject({});
        // The fork's history is its source's: the replay says the first prompt and its answer.
        expect(transcript(updates)).toEqual(expect.arrayContaining(["user: hello", "agent: You said: hello"]));
        expect(await status(forkId)).toBe("open");
        await call("session/close", { sessionId: forkId });
      },
    ],
    [
      "session/resume",
      async () => {
        const updates = updatesOf(forkId);
        expect(await call("session/resume", { sessionId: forkId, cwd, mcpServers: [] })).toMatchObject({});
        expect(await status(forkId)).toBe("open");
        expect(transcript(updates)).toEqual([]);
      },
    ],
    [
      "session/archive",
      async () => {
        expect(await call("session/archive", { sessionId: forkId })).toEqual({});
        expect((await listedIds()).map((row) => row.sessionId)).not.toContain(forkId);
        expect((await listedIds({ archived: "only" })).map((row) => row.sessionId)).toContain(forkId);
      },
    ],
    [
      "session/unarchive",
      async () => {
        expect(await call("session/unarchive", { sessionId: forkId })).toEqual({});
        expect((await listedIds()).map((row) => row.sessionId)).toContain(forkId);
      },
    ],
    [
      "session/delete",
      async () => {
        expect(await call("session/delete", { sessionId: forkId })).toEqual({});
        expect((await listedIds()).map((row) => row.sessionId)).not.toContain(forkId);
        await expect(status(forkId)).rejects.toMatchObject({ code: -32002 });
      },
    ],
    [
      "session/attach",
      async () => {
        const updates = updatesOf(sessionId);
        const answer = await call<{ attachmentId: string; role: string; lastEventId: string }>("session/attach", {
          sessionId,
          role: "observer",
          replayFrom: { type: "start" },
        });
        expect(answer).toMatchObject({ role: "observer", turnRunning: false });
        attachmentId = answer.attachmentId;
        // The replay from the start: the first prompt, then its answer, each with its event id.
        expect(transcript(updates).slice(0, 2)).toEqual(["user: hello", "agent: You said: hello"]);
        expect(updates.at(-1)?._meta?.eventId).toBe(answer.lastEventId);
      },
    ],
    [
      "session/detach",
      async () => {
        expect(await call("session/detach", { sessionId, attachmentId })).toEqual({});
        expect(await call("session/detach", { sessionId, attachmentId })).toEqual({});
      },
    ],
    ["_host/stats", async () => expect(await call("_host/stats", {})).toMatchObject({ pid: host.pid })],
    [
      "_host/set_budget",
      async () => {
        expect(await call("_host/set_budget", { sessionId, tokens: 1_000_000 })).toMatchObject({
          budget: { tokens: 1_000_000 },
        });
        // An amount not given stays as it was.
        expect(await call("_host/set_budget", { sessionId, costUsd: 5 })).toMatchObject({
          budget: { tokens: 1_000_000, costUsd: 5 },
        });
      },
    ],
    [
      "_host/status",
      async () => {
        const answer = await call<{ sessionRows: Array<{ sessionId: string }> }>("_host/status", {});
        expect(answer.sessionRows.map((row) => row.sessionId)).toContain(sessionId);
      },
    ],
  ];
  expect(checks.map(([method]) => method).sort()).toEqual([...listed].sort());
  for (const [method, check] of checks) {
    try {
      await check();
    } catch (error) {
      throw new Error(`${method}: ${(error as Error).message}`, { cause: error });
    }
  }
  // Every other ACP method is not found.
  for (const method of Object.values(AGENT_METHODS)) {
    if (listed.has(method)) continue;
    const answer = await call(method, {}).then(
      () => "answered",
      (error: { code?: number }) => error.code,
    );
    expect({ method, answer }).toEqual({ method, answer: -32601 });
  }
});
