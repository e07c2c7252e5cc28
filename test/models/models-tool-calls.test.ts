// A model's broken tool calls (arguments that are not JSON, that fail the tool's schema, a tool that does not exist)
// become failed tool results the model reads, never a failed turn; a model that repeats one is stopped by
// --max-turn-requests; an empty answer ends the turn with nothing committed. Real host, real provider, local server.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";

describe("broken tool calls and empty answers", () => {
  let server: OpenAiTestServer;
  let host: TestHost;

  beforeAll(async () => {
    server = await OpenAiTestServer.start();
    host = await startHost([...server.hostArgs(), "--default-mode", "auto", "--max-turn-requests", "4"]);
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  const resultOf = (call: { rawOutput: unknown }) => (call.rawOutput as { output: string }).output;
  const toolMessage = (id: string) =>
    server.requests.at(-1)!.body.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content;

  it("arguments that are not valid JSON: a failed tool call saying so, nothing runs, the turn goes on", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    server.enqueue(
      { toolCalls: [{ id: "call_json", name: "write_file", arguments: '{"path": "a.txt", "content": "unterminated' }] },
      { text: "I will fix my JSON." },
    );
    const result = await host.client.prompt(sessionId, "write a file");
    expect(result.stopReason).toBe("end_turn");
    expect(result.text).toBe("I will fix my JSON.");
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]).toMatchObject({ status: "failed", title: "write_file" });
    expect(resultOf(result.toolCalls[0]!)).toMatch(
      /^the arguments of write_file are not valid JSON \(.+\); they were: \{"path": "a.txt", "content": "unterminated$/,
    );
    expect(toolMessage("call_json")).toBe(`Error: ${resultOf(result.toolCalls[0]!)}`);
    expect(existsSync(join(cwd, "a.txt"))).toBe(false);
  });

  it("arguments that fail the tool's schema: a failed tool call naming the field", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue(
      { toolCalls: [{ id: "call_schema", name: "bash", arguments: { command: 42 } }] },
      { text: "Retrying with a string." },
    );
    const result = await host.client.prompt(sessionId, "run something");
    expect(result.stopReason).toBe("end_turn");
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed"]);
    expect(resultOf(result.toolCalls[0]!)).toMatch(/^invalid arguments for bash: .*expected string.*command/);
    expect(toolMessage("call_schema")).toBe(`Error: ${resultOf(result.toolCalls[0]!)}`);
  });

  it("an unknown tool, a broken call and a good one in one answer: each gets its own result", async () => {
    const cwd = tempDir();
    const { sessionId } = await host.client.newSession(cwd);
    server.enqueue(
      {
        toolCalls: [
          { id: "call_unknown", name: "delete_everything", arguments: {} },
          { id: "call_broken", name: "list_dir", arguments: "{path:" },
          { id: "call_good", name: "write_file", arguments: { path: "ok.txt", content: "fine" } },
        ],
      },
      { text: "Two of three failed." },
    );
    const result = await host.client.prompt(sessionId, "three calls");
    expect(result.stopReason).toBe("end_turn");
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed", "failed", "completed"]);
    expect(toolMessage("call_unknown")).toBe(
      'Error: unknown tool "delete_everything" (the tools are: bash, bash_output, bash_kill, read_file, write_file, edit_file, list_dir, update_plan, spawn_agent)',
    );
    expect(toolMessage("call_broken")).toMatch(/^Error: the arguments of list_dir are not valid JSON/);
    expect(existsSync(join(cwd, "ok.txt"))).toBe(true);
  });

  it("a model that repeats a failing call is stopped by --max-turn-requests, and the next prompt works", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const before = server.requests.length;
    const broken = { toolCalls: [{ name: "read_file", arguments: "not json at all" }] };
    server.enqueue(broken, broken, broken, broken);
    const result = await host.client.prompt(sessionId, "keep trying");
    expect(result.stopReason).toBe("max_turn_requests");
    expect(server.requests.length - before).toBe(4);
    expect(result.toolCalls.map((call) => call.status)).toEqual(["failed", "failed", "failed", "failed"]);
    server.enqueue({ text: "giving up" });
    expect((await host.client.prompt(sessionId, "stop")).text).toBe("giving up");
    expect(server.requests.length - before).toBe(5);
  });

  it("an empty answer ends the turn end_turn with nothing committed, logged as a warning when it is the turn's first", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    server.enqueue({ text: "" });
    const result = await host.client.prompt(sessionId, "say nothing");
    expect(result.stopReason).toBe("end_turn");
    expect(
      result.updates.filter(
        (u) => u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "agent_thought_chunk",
      ),
    ).toEqual([]);
    const warning = host
      .stderr()
      .split("\n")
      .find((line) => line.includes(sessionId) && line.includes("answered with nothing"));
    expect(JSON.parse(warning!)).toMatchObject({ level: 40, model: "m" });

    // After a tool round too; and nothing of either empty answer is in the conversation.
    server.enqueue({ toolCalls: [{ id: "call_ls", name: "list_dir", arguments: { path: "." } }] }, { text: "" });
    const afterTool = await host.client.prompt(sessionId, "look, then say nothing");
    expect(afterTool.stopReason).toBe("end_turn");
    expect(afterTool.toolCalls.map((call) => call.status)).toEqual(["completed"]);
    // An empty answer after tool results is an ordinary end: still only the one warning.
    expect(
      host
        .stderr()
        .split("\n")
        .filter((line) => line.includes(sessionId) && line.includes("answered with nothing")),
    ).toHaveLength(1);
    server.enqueue({ text: "here" });
    await host.client.prompt(sessionId, "now talk");
    const messages = server.requests.at(-1)!.body.messages.filter((m) => m.role !== "system");
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
    expect(messages[0]).toEqual({ role: "user", content: "say nothing\n\nlook, then say nothing" });
  });
});
