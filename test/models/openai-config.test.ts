// Configuring a real model: flags, the deepseek preset, the API key's variable, and the `model` session config option.
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHost, tempDir, type TestHost } from "../support/host.js";
import { OpenAiTestServer } from "../support/openai-server.js";
import { anyEventId } from "../support/tools.js";

const CLI = fileURLToPath(new URL("../../dist/src/cli.js", import.meta.url));

/** The environment without any variable a test sets for the host. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ["OPENAI_API_KEY", "DEEPSEEK_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"]) delete env[name];
  return { ...env, ...extra };
}

describe("model flags", () => {
  const serve = (...args: string[]) =>
    spawnSync(process.execPath, [CLI, "serve", ...args], { input: "", encoding: "utf8", timeout: 20_000 });

  it.each([
    [
      ["--model-provider", "openai-compatible", "--model", "m"],
      "acp-session-host: --base-url: required with --model-provider openai-compatible",
    ],
    [
      ["--model-provider", "openai-compatible", "--base-url", "http://127.0.0.1:1/v1"],
      "acp-session-host: --model: required with --model-provider openai-compatible",
    ],
    [
      ["--base-url", "http://127.0.0.1:1/v1"],
      "acp-session-host: --base-url: needs --model-provider openai-compatible or deepseek",
    ],
    [["--model", "gpt-4o"], "acp-session-host: --model: needs --model-provider openai-compatible or deepseek"],
    [
      ["--model-provider", "deepseek", "--base-url", "not a url"],
      "acp-session-host: --base-url: must be an http(s) URL",
    ],
    [
      ["--model-provider", "deepseek", "--base-url", "ftp://example.com/v1"],
      "acp-session-host: --base-url: must be an http(s) URL",
    ],
    [["--model-provider", "nope"], "acp-session-host: --model-provider:"],
  ])("a bad combination exits 2 with one line: %j", (args, line) => {
    const result = serve(...args);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr.trim().startsWith(line)).toBe(true);
  });

  it("--help lists the model flags", () => {
    const help = spawnSync(process.execPath, [CLI, "--help"], { encoding: "utf8" }).stdout;
    for (const flag of [
      "--model-provider",
      "--base-url",
      "--model ",
      "--models",
      "--api-key-env",
      "--model-retries",
      "--context-window",
    ])
      expect(help).toContain(flag);
  });
});

describe("the deepseek preset", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start({
      apiKey: "sk-deepseek-test",
      models: ["deepseek-chat", "deepseek-reasoner"],
    });
    // --base-url overrides the preset's https://api.deepseek.com so the test stays on loopback.
    host = await startHost(
      ["--model-provider", "deepseek", "--base-url", server.url],
      "deny",
      cleanEnv({ DEEPSEEK_API_KEY: "sk-deepseek-test", OPENAI_API_KEY: "sk-must-not-be-sent" }),
    );
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("uses deepseek-chat with the key from DEEPSEEK_API_KEY, and reports its 128k window", async () => {
    const session = await host.client.newSession(tempDir());
    expect(session.configOptions).toEqual([
      expect.objectContaining({
        id: "model",
        type: "select",
        category: "model",
        currentValue: "deepseek-chat",
        options: [{ value: "deepseek-chat", name: "deepseek-chat" }],
      }),
    ]);
    const result = await host.client.prompt(session.sessionId, "hi");
    expect(result.text).toBe("[deepseek-chat] you said: hi");
    expect(result.usage?.size).toBe(128_000);
    expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer sk-deepseek-test");
  });
});

describe("the API key", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start({ apiKey: "sk-needed" });
    host = await startHost([...server.hostArgs(), "--api-key-env", "UNSET_TEST_KEY"], "deny", cleanEnv());
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  it("an unset variable sends no Authorization header; the 401 says which variable is not set", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    await expect(host.client.prompt(sessionId, "hello?")).rejects.toMatchObject({
      code: -32603,
      data: expect.objectContaining({ reason: "MODEL_FAILED" }),
      message: expect.stringMatching(
        /HTTP 401: Incorrect API key provided.*the environment variable UNSET_TEST_KEY is not set/,
      ),
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
  });
});

describe("a server that is down", () => {
  let host: TestHost;
  let port: number;
  beforeAll(async () => {
    // A port nothing listens on: bind one, note it, close it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    port = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    host = await startHost(
      [
        "--model-provider",
        "openai-compatible",
        "--base-url",
        `http://127.0.0.1:${port}/v1`,
        "--model",
        "m",
        "--model-retries",
        "1",
      ],
      "deny",
      cleanEnv(),
    );
  });
  afterAll(async () => host?.dispose());

  it("fails the prompt with a connection error after the bounded retries; the session stays usable", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    for (let i = 0; i < 2; i++) {
      await expect(host.client.prompt(sessionId, `attempt ${i}`)).rejects.toMatchObject({
        code: -32603,
        data: expect.objectContaining({ reason: "MODEL_FAILED" }),
        message: expect.stringMatching(
          new RegExp(
            `^model "m" at http://127\\.0\\.0\\.1:${port}/v1: connection failed: .*ECONNREFUSED.*\\(gave up after 2 attempts\\)$`,
          ),
        ),
      });
    }
  });
});

describe("the model config option", () => {
  let server: OpenAiTestServer;
  let host: TestHost;
  beforeAll(async () => {
    server = await OpenAiTestServer.start({ models: ["model-a", "model-b"], firstTokenMs: 20 });
    host = await startHost(
      [...server.hostArgs("model-a"), "--models", "model-b, model-a,ghost-model", "--context-window", "32768"],
      "deny",
      cleanEnv(),
    );
  });
  afterAll(async () => {
    await host?.dispose();
    await server?.close();
  });

  const modelOption = (current: string) => [
    {
      id: "model",
      name: "Model",
      description: expect.any(String),
      category: "model",
      type: "select",
      currentValue: current,
      options: ["model-a", "model-b", "ghost-model"].map((value) => ({ value, name: value })),
    },
  ];

  it("two sessions on different models answer from their own model, at the same time", async () => {
    const a = await host.client.newSession(tempDir());
    const b = await host.client.newSession(tempDir());
    expect(a.configOptions).toEqual(modelOption("model-a"));
    expect(b.configOptions).toEqual(modelOption("model-a"));

    const updates: SessionUpdate[] = [];
    const off = host.client.onSessionUpdate(b.sessionId, (update) => updates.push(update));
    const response = await host.client.setConfigOption(b.sessionId, "model", "model-b");
    off();
    expect(response).toEqual({ configOptions: modelOption("model-b") });
    expect(updates).toEqual([
      { sessionUpdate: "config_option_update", configOptions: modelOption("model-b"), _meta: { eventId: anyEventId } },
    ]);

    const [ra, rb] = await Promise.all([
      host.client.prompt(a.sessionId, "who are you?"),
      host.client.prompt(b.sessionId, "and you?"),
    ]);
    expect(ra.text).toBe("[model-a] you said: who are you?");
    expect(rb.text).toBe("[model-b] you said: and you?");
    expect(ra.usage?.size).toBe(32_768);
    const byPrompt = new Map(server.requests.map((r) => [r.lastUserText, r.body.model]));
    expect(byPrompt.get("who are you?")).toBe("model-a");
    expect(byPrompt.get("and you?")).toBe("model-b");

    // Switching back works too, and the other session is untouched.
    await host.client.setConfigOption(b.sessionId, "model", "model-a");
    expect((await host.client.prompt(b.sessionId, "again")).text).toBe("[model-a] you said: again");
    expect((await host.client.prompt(a.sessionId, "still a?")).text).toBe("[model-a] you said: still a?");
  });

  it("a model the host has but the server does not: 404, not retried, the message names the model; others go on", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    const other = await host.client.newSession(tempDir());
    await host.client.setConfigOption(sessionId, "model", "ghost-model");
    const before = server.requests.length;
    const [failed, fine] = await Promise.allSettled([
      host.client.prompt(sessionId, "anyone?"),
      host.client.prompt(other.sessionId, "meanwhile"),
    ]);
    expect(failed).toMatchObject({
      status: "rejected",
      reason: {
        code: -32603,
        message: `model "ghost-model" at ${server.url}: HTTP 404: The model \`ghost-model\` does not exist or you do not have access to it.`,
      },
    });
    expect(fine).toMatchObject({ status: "fulfilled", value: { text: "[model-a] you said: meanwhile" } });
    expect(server.requests.slice(before).filter((r) => r.body.model === "ghost-model")).toHaveLength(1);
  });

  it("an unknown model or option is refused with invalid params and changes nothing", async () => {
    const { sessionId } = await host.client.newSession(tempDir());
    await expect(host.client.setConfigOption(sessionId, "model", "gpt-9")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "value" }),
      message: expect.stringContaining("unknown model: gpt-9 (this host has: model-a, model-b, ghost-model)"),
    });
    await expect(host.client.setConfigOption(sessionId, "temperature", "hot")).rejects.toMatchObject({
      code: -32602,
      data: expect.objectContaining({ reason: "INVALID_PARAMS", field: "configId" }),
    });
    expect((await host.client.prompt(sessionId, "unchanged?")).text).toBe("[model-a] you said: unchanged?");
  });
});

describe("the scripted default", () => {
  let host: TestHost;
  beforeAll(async () => {
    host = await startHost([], "deny", cleanEnv());
  });
  afterAll(async () => host?.dispose());

  it("offers the scripted model as the only choice", async () => {
    const session = await host.client.newSession(tempDir());
    expect(session.configOptions).toEqual([
      expect.objectContaining({
        id: "model",
        currentValue: "scripted",
        options: [{ value: "scripted", name: "scripted" }],
      }),
    ]);
    expect(await host.client.setConfigOption(session.sessionId, "model", "scripted")).toMatchObject({
      configOptions: [{ currentValue: "scripted" }],
    });
    expect((await host.client.prompt(session.sessionId, "hi")).text).toBe("You said: hi");
  });
});
