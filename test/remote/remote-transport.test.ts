// Remote ACP over both transports: a host serving --listen on loopback, driven by HostClient.connect (the SDK's
// own WebSocket and Streamable HTTP clients): prompts, tool calls, cancel and permission requests.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/host.js";
import { startRemoteHost, transports, type RemoteHost } from "../support/remote-host.js";
import { script, tool, waitFor } from "../support/tools.js";
import { connectHost } from "../support/checked-host.js";

let host: RemoteHost;
beforeAll(async () => {
  host = await startRemoteHost();
});
afterAll(async () => {
  expect(await host.stop()).toBe(0);
});

describe.each(transports)("over $name", ({ url }) => {
  it("answers a prompt with its updates, and initialize advertises durable sessions", async () => {
    const client = await connectHost(url(host));
    try {
      expect(client.initializeResponse.agentCapabilities?.loadSession).toBe(true);
      const { sessionId } = await client.newSession(tempDir());
      const turn = await client.prompt(sessionId, "hello over the wire");
      expect(turn.stopReason).toBe("end_turn");
      expect(turn.text).toBe("You said: hello over the wire");
      expect(turn.updates.map((update) => update.sessionUpdate)).toContain("agent_message_chunk");
    } finally {
      await client.dispose();
    }
  });

  it("runs a tool call and reports it", async () => {
    const client = await connectHost(url(host));
    try {
      const ws = tempDir();
      const { sessionId } = await client.newSession(ws, { mode: "auto" });
      const turn = await client.prompt(
        sessionId,
        script(tool("write_file", { path: "out.txt", content: "remote\n" }), { say: "done: {{result}}" }),
      );
      expect(turn.stopReason).toBe("end_turn");
      expect(turn.toolCalls.map((call) => [call.title, call.status])).toEqual([["Write out.txt", "completed"]]);
      expect(readFileSync(join(ws, "out.txt"), "utf8")).toBe("remote\n");
      expect(turn.text).toMatch(/^done: /);
    } finally {
      await client.dispose();
    }
  });

  it("cancels a turn: the prompt ends cancelled and the session stays usable", async () => {
    const client = await connectHost(url(host));
    try {
      const { sessionId } = await client.newSession(tempDir());
      const controller = new AbortController();
      const turn = client.prompt(sessionId, script({ sleep_ms: 60_000 }, { say: "never" }), {
        signal: controller.signal,
      });
      await waitFor("the turn to start", async () => (await client.stats()).sessions.busy >= 1);
      controller.abort();
      const result = await turn;
      expect(result.stopReason).toBe("cancelled");
      expect(result.text).not.toContain("never");
      expect((await client.prompt(sessionId, "after cancel")).text).toBe("You said: after cancel");
    } finally {
      await client.dispose();
    }
  });

  it("asks this connection for permission: reject refuses the write, allow runs it", async () => {
    const asked: RequestPermissionRequest[] = [];
    let answer: "allow_once" | "reject_once" = "reject_once";
    const client = await connectHost(url(host), {
      permission: (request) => {
        asked.push(request);
        return { outcome: { outcome: "selected", optionId: answer } };
      },
    });
    try {
      const ws = tempDir();
      const { sessionId } = await client.newSession(ws, { mode: "ask" });
      const refused = await client.prompt(sessionId, script(tool("write_file", { path: "a.txt", content: "a" })));
      expect(refused.toolCalls.map((call) => call.status)).toEqual(["failed"]);
      expect(existsSync(join(ws, "a.txt"))).toBe(false);
      answer = "allow_once";
      const allowed = await client.prompt(sessionId, script(tool("write_file", { path: "b.txt", content: "b" })));
      expect(allowed.toolCalls.map((call) => call.status)).toEqual(["completed"]);
      expect(readFileSync(join(ws, "b.txt"), "utf8")).toBe("b");
      expect(asked.map((request) => [request.sessionId, request.toolCall.title])).toEqual([
        [sessionId, "Write a.txt"],
        [sessionId, "Write b.txt"],
      ]);
    } finally {
      await client.dispose();
    }
  });
});

it("GET /healthz answers without auth: status, sessions, live workers", async () => {
  const response = await fetch(host.httpUrl.replace(/\/acp$/, "/healthz"));
  expect(response.status).toBe(200);
  const body = (await response.json()) as { status: string; sessions: number; liveWorkers: number };
  expect(body.status).toBe("ok");
  expect(body.sessions).toBeGreaterThanOrEqual(1);
  expect(typeof body.liveWorkers).toBe("number");
});
