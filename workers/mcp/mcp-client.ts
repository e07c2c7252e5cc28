// The MCP client of a session worker, a bundle of its own (dist/workers/bundle/mcp-client.js) that only sessions
// with MCP servers load: the session's servers, their connections and their tools exist in this worker only.
import type { McpServerConfig, McpServerStatus } from "../../src/protocol/mcp-servers.js";
import type { SessionModeId } from "../../src/protocol/port.js";
import { sandboxFor } from "../tools/policy.js";
import type { SpawnerConnection } from "../tools/spawner-connection.js";
import type { Tool, ToolSource } from "../tools/tool.js";
import { McpServerLink } from "./mcp-server-link.js";

export interface McpSourceOptions {
  servers: readonly McpServerConfig[];
  connection: SpawnerConnection;
  mode: SessionModeId;
  startupTimeoutMs: number;
  outputCapBytes: number;
  report(server: string, status: McpServerStatus, tools: string[], message: string | null): void;
}

export class McpSource implements ToolSource {
  readonly #options: McpSourceOptions;
  readonly #links = new Map<string, McpServerLink>();

  /** Starts connecting every server at once, in the background. */
  constructor(options: McpSourceOptions) {
    this.#options = options;
    for (const server of options.servers) this.#links.set(server.name, this.#link(server, sandboxFor(options.mode)));
  }

  async prepare(signal: AbortSignal): Promise<void> {
    const links = [...this.#links.values()];
    const aborted = new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      signal.addEventListener("abort", () => resolve(), { once: true });
    });
    await Promise.race([Promise.all(links.map((link) => link.ready)), aborted]);
    await Promise.race([Promise.all(links.map((link) => link.refresh())), aborted]);
  }

  tools(): readonly Tool[] {
    return [...this.#links.values()].flatMap((link) => link.tools);
  }

  /** A stdio server runs in the sandbox of the mode it was started in: a mode with another sandbox restarts it. */
  setMode(mode: SessionModeId): void {
    const sandbox = sandboxFor(mode);
    this.#restartStdio((link) => link.sandbox !== sandbox, sandbox);
  }

  spawnerRestarted(): void {
    this.#restartStdio(() => true, null);
  }

  /** sandbox null: the one each had. */
  #restartStdio(which: (link: McpServerLink) => boolean, sandbox: ReturnType<typeof sandboxFor> | null): void {
    for (const [name, link] of this.#links) {
      if (link.config.type !== "stdio" || !which(link)) continue;
      void link.close();
      this.#links.set(name, this.#link(link.config, sandbox ?? link.sandbox));
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#links.values()].map((link) => link.close()));
  }

  #link(server: McpServerConfig, sandbox: ReturnType<typeof sandboxFor>): McpServerLink {
    const { connection, startupTimeoutMs, outputCapBytes, report } = this.#options;
    return new McpServerLink(server, sandbox, { connection, startupTimeoutMs, outputCapBytes, report });
  }
}
