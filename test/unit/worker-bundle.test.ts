// What a session worker loads: the bundle `npm run build` makes holds the worker's code and zod/mini, and leaves
// the openai client (and full zod) out: the openai client lives in the host's one model gateway thread.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { codeCacheName } from "../../workers/code-cache-name.js";

const bundle = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../dist/workers/bundle/${name}`, import.meta.url)), "utf8");

describe("the session worker bundle", () => {
  const worker = bundle("session-entry.js");

  it("has zod/mini and not full zod", () => {
    expect(worker).toContain("ZodMiniObject");
    // Full zod's object schema ("ZodObject", not zod core's "$ZodObject" nor mini's) comes only with its classic build.
    expect(worker).not.toMatch(/[^$\w]ZodObject\b/);
  });

  it("has no openai client: the model gateway's bundle has it, and a session worker never loads it", () => {
    expect(worker).not.toMatch(/\bvar OpenAI = class\b/);
    expect(worker).not.toMatch(/require\("\.\/(openai-compatible|model-gateway)\.js"\)/);
    expect(worker).toMatch(/\bvar GatewayLink = class\b/);
    expect(bundle("model-gateway.js")).toMatch(/\bvar OpenAI = class\b/);
  });

  it("leaves the gateway's asks to the gateway's bundle: a session worker sends them and never parses one", () => {
    expect(worker).not.toMatch(/\bvar (GatewayAsk|GatewayControl) =/);
    expect(worker).toMatch(/\bvar GatewayReply = /);
    expect(bundle("model-gateway.js")).toMatch(/\bvar GatewayAsk = /);
  });

  it("leaves the MCP client to a bundle of its own, required only by sessions with MCP servers", () => {
    expect(worker).not.toContain("StreamableHTTPClientTransport");
    expect(worker).not.toMatch(/\bvar Client = class\b/);
    expect(worker).toContain('require("./mcp-client.js")');
    const mcp = bundle("mcp-client.js");
    expect(mcp).toContain("StreamableHTTPClientTransport");
    expect(mcp).toMatch(/\bvar McpSource = class\b/);
  });

  it("comes with the V8 code cache made at build time, named by the building Node's V8 version", () => {
    expect(bundle(codeCacheName(process.versions.v8)).length).toBeGreaterThan(0);
  });
});
