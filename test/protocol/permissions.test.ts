// Session modes and permission requests, through the host over stdio with a real client answering
// session/request_permission: allow, reject, allow always, cancel, and switching modes mid-session.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type {
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { bash, resultOf, results, script, tool, waitFor } from "../support/tools.js";

const allow = (optionId: "allow_once" | "allow_always" | "reject_once"): RequestPermissionResponse => ({
  outcome: { outcome: "selected", optionId },
});

describe("ask mode and permission requests", () => {
  let host: TestHost;
  const asked: RequestPermissionRequest[] = [];
  /** Per session: how the next request is answered (default allow once); a pending promise holds it open. */
  const answers = new Map<
    string,
    (request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>
  >();
  beforeAll(async () => {
    host = await startHost([], (request) => {
      asked.push(request);
      return answers.get(request.sessionId)?.(request) ?? allow("allow_once");
    });
  });
  afterAll(async () => {
    await host.dispose();
  });

  const askedBy = (sessionId: string) => asked.filter((request) => request.sessionId === sessionId);

  it("asks before every command and file write, not before reads; allow runs the call", async () => {
    const ws = tempDir();
    writeFileSync(join(ws, "readme.txt"), "read me\n");
    const { sessionId, modes } = await host.client.newSession(ws);
    expect(modes?.currentModeId).toBe("ask");
    expect(modes?.availableModes.map((mode) => mode.id)).toEqual(["ask", "auto", "read-only"]);
    const result = await host.client.prompt(
      sessionId,
      script(
        tool("read_file", { path: "readme.txt" }),
        tool("list_dir", { path: "." }),
        bash("touch ran"),
        tool("write_file", { path: "new.txt", content: "new\n" }),
        tool("edit_file", { path: "new.txt", old_string: "new", new_string: "newer" }),
      ),
    );
    expect(result.toolCalls.map((call) => call.status)).toEqual([
      "completed",
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    const requests = askedBy(sessionId);
    expect(requests.map((request) => request.toolCall.title)).toEqual(["touch ran", "Write new.txt", "Edit new.txt"]);
    // each request names the tool call it is about, as announced in the tool_call update
    expect(requests.map((request) => request.toolCall.toolCallId)).toEqual(
      result.toolCalls.slice(2).map((call) => call.toolCallId),
    );
    expect(requests[0]!.toolCall.kind).toBe("execute");
    expect(requests[0]!.options.map((option) => option.optionId)).toEqual([
      "allow_once",
      "allow_always",
      "reject_once",
    ]);
    expect(existsSync(join(ws, "ran"))).toBe(true);
  });

  it("reject refuses the call: the model is told, nothing runs", async () => {
    const ws = tempDir();
    const { sessionId } = await host.client.newSession(ws);
    answers.set(sessionId, () => allow("reject_once"));
    const result = await host.client.prompt(
      sessionId,
      script(bash("touch ran"), tool("write_file", { path: "w.txt", content: "x" }), { say: "{{result}}" }),
    );
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed", "failed"]);
    expect(results(result)).toEqual(["the user refused this tool call", "the user refused this tool call"]);
    expect(result.text).toBe("the user refused this tool call");
    expect(existsSync(join(ws, "ran"))).toBe(false);
    expect(existsSync(join(ws, "w.txt"))).toBe(false);
  });

  it("allow always holds for that tool in that session only", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const other = (await host.client.newSession(tempDir())).sessionId;
    answers.set(sessionId, () => allow("allow_always"));
    await host.client.prompt(sessionId, script(bash("echo 1"), bash("echo 2")));
    await host.client.prompt(
      sessionId,
      script(
        bash("echo 3"),
        tool("write_file", { path: "a.txt", content: "a" }),
        tool("write_file", { path: "b.txt", content: "b" }),
      ),
    );
    expect(askedBy(sessionId).map((request) => request.toolCall.title)).toEqual(["echo 1", "Write a.txt"]);
    await host.client.prompt(other, script(bash("echo 4")));
    expect(askedBy(other).map((request) => request.toolCall.title)).toEqual(["echo 4"]);
  });

  it("cancelling a session settles its pending request as cancelled; another session's pending request is untouched", async () => {
    const wsA = tempDir();
    const wsB = tempDir();
    const a = (await host.client.newSession(wsA)).sessionId;
    const b = (await host.client.newSession(wsB)).sessionId;
    let answerB: (response: RequestPermissionResponse) => void = () => {};
    answers.set(a, () => new Promise<RequestPermissionResponse>(() => {}));
    answers.set(b, () => new Promise<RequestPermissionResponse>((resolve) => (answerB = resolve)));

    const turnA = host.client.prompt(a, script(bash("touch ran-a"), { say: "after" }));
    let settledB = false;
    const turnB = host.client
      .prompt(b, script(bash("touch ran-b"), { say: "b done" }))
      .finally(() => (settledB = true));
    await waitFor("both requests", () => askedBy(a).length === 1 && askedBy(b).length === 1);

    await host.client.cancel(a);
    const resultA = await turnA;
    expect(resultA.stopReason).toBe("cancelled");
    expect(resultA.toolCalls[0]!.status).toBe("failed");
    expect(resultOf(resultA.toolCalls[0])).toBe("the user cancelled this tool call");
    expect(resultA.text).toBe("");
    expect(existsSync(join(wsA, "ran-a"))).toBe(false);

    // a full round trip through the host later, B is still waiting for its answer
    await host.client.prompt((await host.client.newSession(tempDir())).sessionId, "ping");
    expect(settledB).toBe(false);
    expect(existsSync(join(wsB, "ran-b"))).toBe(false);
    answerB(allow("allow_once"));
    const resultB = await turnB;
    expect(resultB).toMatchObject({ stopReason: "end_turn", text: "b done" });
    expect(existsSync(join(wsB, "ran-b"))).toBe(true);
  });
});

describe("session modes", () => {
  it("switching modes answers with current_mode_update and changes what the tools do", async () => {
    const asked: RequestPermissionRequest[] = [];
    const host = await startHost([], (request) => {
      asked.push(request);
      return allow("allow_once");
    });
    try {
      const ws = tempDir();
      const { sessionId } = await host.client.newSession(ws);
      const updates: SessionUpdate[] = [];
      host.client.onSessionUpdate(sessionId, (update) => updates.push(update));
      const modeUpdates = () =>
        updates.flatMap((update) => (update.sessionUpdate === "current_mode_update" ? [update.currentModeId] : []));

      await host.client.setMode(sessionId, "auto");
      await waitFor("current_mode_update auto", () => modeUpdates().includes("auto"));
      const auto = await host.client.prompt(
        sessionId,
        script(bash("echo hi > a.txt"), tool("write_file", { path: "b.txt", content: "b" })),
      );
      expect(auto.toolCalls.map((call) => call.status)).toEqual(["completed", "completed"]);
      expect(asked).toHaveLength(0);

      await host.client.setMode(sessionId, "read-only");
      await waitFor("current_mode_update read-only", () => modeUpdates().includes("read-only"));
      const readOnly = await host.client.prompt(
        sessionId,
        script(bash("echo hi > c.txt"), tool("write_file", { path: "d.txt", content: "d" }), bash("cat a.txt")),
      );
      expect(readOnly.toolCalls.map((call) => call.status)).toEqual(["failed", "failed", "completed"]);
      expect(resultOf(readOnly.toolCalls[0])).toContain("Read-only file system");
      expect(existsSync(join(ws, "c.txt"))).toBe(false);
      expect(existsSync(join(ws, "d.txt"))).toBe(false);

      await host.client.setMode(sessionId, "ask");
      await waitFor("current_mode_update ask", () => modeUpdates().at(-1) === "ask");
      const ask = await host.client.prompt(sessionId, script(bash("echo hi > e.txt")));
      expect(ask.toolCalls[0]!.status).toBe("completed");
      expect(asked.map((request) => request.toolCall.title)).toEqual(["echo hi > e.txt"]);
      expect(modeUpdates()).toEqual(["auto", "read-only", "ask"]);
    } finally {
      await host.dispose();
    }
  });
});
