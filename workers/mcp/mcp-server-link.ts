// One MCP server of a session: connects (stdio through the spawner, http from this worker), lists its tools, calls
// them, and says every change of state. Whatever goes wrong with it fails it alone: never the session, never another
// server. A server still connecting when the startup timeout ends is failed and its process ended.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ToolListChangedNotificationSchema, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { McpServerConfig, McpServerStatus } from "../../src/protocol/mcp-servers.js";
import type { SandboxKind } from "../../src/protocol/spawner-requests.js";
import type { SpawnerConnection } from "../tools/spawner-connection.js";
import type { Tool, ToolResult } from "../tools/tool.js";
import { renderResult, toolsOf } from "./mcp-tools.js";
import { describeExit, SpawnerStdioTransport } from "./spawner-stdio-transport.js";

/** A tool call may run long; it is bounded by the turn (cancel, --turn-timeout-ms), and by this. */
const CALL_TIMEOUT_MS = 60 * 60_000;

export interface LinkDeps {
  connection: SpawnerConnection;
  startupTimeoutMs: number;
  outputCapBytes: number;
  report(server: string, status: McpServerStatus, tools: string[], message: string | null): void;
}

export class McpServerLink {
  readonly config: McpServerConfig;
  readonly sandbox: SandboxKind;
  /** Settles once the server has connected or failed. */
  readonly ready: Promise<void>;
  readonly #deps: LinkDeps;
  #status: McpServerStatus = "connecting";
  #tools: Tool[] = [];
  #client: Client | null = null;
  #transport: Transport | null = null;
  #listChanged = false;
  #refreshing: Promise<void> | null = null;
  #closed = false;
  #settle: () => void = () => {};

  constructor(config: McpServerConfig, sandbox: SandboxKind, deps: LinkDeps) {
    this.config = config;
    this.sandbox = sandbox;
    this.#deps = deps;
    this.ready = new Promise((resolve) => (this.#settle = resolve));
    deps.report(config.name, "connecting", [], null);
    const timer = setTimeout(
      () =>
        this.#fail(
          `did not connect within --mcp-startup-timeout-ms ${deps.startupTimeoutMs}: left out of this session`,
        ),
      deps.startupTimeoutMs,
    );
    void this.#connect().finally(() => clearTimeout(timer));
  }

  get tools(): readonly Tool[] {
    return this.#status === "connected" ? this.#tools : [];
  }

  /** Re-reads the tool list if the server said it changed (notifications/tools/list_changed). */
  refresh(): Promise<void> {
    if (!this.#listChanged || this.#status !== "connected") return this.#refreshing ?? Promise.resolve();
    this.#listChanged = false;
    this.#refreshing ??= this.#listTools()
      .then((tools) => {
        if (this.#status !== "connected") return;
        this.#tools = tools;
        this.#deps.report(
          this.config.name,
          "connected",
          tools.map((tool) => tool.name),
          "its tool list changed",
        );
      })
      .catch((error: unknown) => this.#fail(`could not list its tools: ${messageOf(error)}`))
      .finally(() => (this.#refreshing = null));
    return this.#refreshing;
  }

  /** An http server is told its MCP session ended (DELETE), then the transport closes; a stdio server's group ends. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#settle();
    const transport = this.#transport;
    if (transport instanceof StreamableHTTPClientTransport && this.#status === "connected")
      await transport.terminateSession().catch(() => {});
    await transport?.close().catch(() => {});
  }

  async #connect(): Promise<void> {
    const transport = this.#transportFor(this.config);
    this.#transport = transport;
    const client = new Client({ name: "acp-session-host", version: "1" }, { capabilities: {} });
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      this.#listChanged = true;
    });
    // The process exited or the connection dropped: its tools go, the session goes on.
    client.onclose = () =>
      this.#fail(
        `${this.#status === "connecting" ? "could not connect" : "the server closed the connection"}: ${this.#whyClosed()}`,
      );
    this.#client = client;
    try {
      await client.connect(transport);
      const tools = await this.#listTools();
      if (this.#status !== "connecting") return;
      this.#tools = tools;
      this.#status = "connected";
      this.#settle();
      this.#deps.report(
        this.config.name,
        "connected",
        tools.map((tool) => tool.name),
        null,
      );
    } catch (error) {
      this.#fail(`could not connect: ${messageOf(error)}${this.#exitDetail()}`);
    }
  }

  #transportFor(config: McpServerConfig): Transport {
    if (config.type === "http")
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    return new SpawnerStdioTransport(this.#deps.connection, {
      command: config.command,
      args: config.args,
      env: config.env,
      sandbox: this.sandbox,
    });
  }

  async #listTools(): Promise<Tool[]> {
    const client = this.#client!;
    const listed: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      listed.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return toolsOf(this.config.name, listed, (name, args, signal) => this.#call(name, args, signal));
  }

  async #call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const client = this.#client;
    if (!client || this.#status !== "connected")
      return { output: `MCP server "${this.config.name}" is not connected`, isError: true };
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
      });
      if (!("content" in result) || !Array.isArray(result.content))
        return { output: JSON.stringify(result.toolResult ?? result), isError: false };
      return renderResult({ ...result, content: result.content }, this.#deps.outputCapBytes);
    } catch (error) {
      if (signal.aborted) return { output: "the tool call was cancelled", isError: true };
      return {
        output: `MCP server "${this.config.name}" failed during the call of ${name}: ${messageOf(error)}${this.#exitDetail()}`,
        isError: true,
      };
    }
  }

  #whyClosed(): string {
    const transport = this.#transport;
    if (transport instanceof SpawnerStdioTransport && transport.exit)
      return `its process ended (${describeExit(transport.exit)})`;
    return "the connection closed";
  }

  #exitDetail(): string {
    const transport = this.#transport;
    return transport instanceof SpawnerStdioTransport && transport.exit
      ? ` (its process ended: ${describeExit(transport.exit)})`
      : "";
  }

  #fail(message: string): void {
    if (this.#closed || this.#status === "failed") return;
    this.#status = "failed";
    this.#tools = [];
    this.#settle();
    this.#deps.report(this.config.name, "failed", [], message);
    void this.#transport?.close().catch(() => {});
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
