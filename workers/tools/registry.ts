// The tools a session offers its model: its own, and those of its MCP servers (a source that changes while it runs).
// The host never sees this list: it only relays tool activity.
import * as z from "zod/mini";
import type { SessionModeId } from "../../src/protocol/port.js";
import type { Tool, ToolSource, ToolSpec } from "./tool.js";

const SOURCE_CLOSE_MS = 500;

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #onClose: () => void;
  #specs: ToolSpec[] | null = null;
  #source: ToolSource | null = null;

  /** onClose releases what the tools hold (the spawner connection) when the session worker is disposed. */
  constructor(tools: readonly Tool[] = [], onClose: () => void = () => {}) {
    for (const tool of tools) this.#tools.set(tool.name, tool);
    this.#onClose = onClose;
  }

  /** The session's MCP tools, offered from the next model request on. */
  addSource(source: ToolSource): void {
    this.#source = source;
  }

  /** Before a model request: the source's tools are brought up to date. */
  prepare(signal: AbortSignal): Promise<void> {
    return this.#source?.prepare(signal) ?? Promise.resolve();
  }

  setMode(mode: SessionModeId): void {
    this.#source?.setMode(mode);
  }

  spawnerRestarted(): void {
    this.#source?.spawnerRestarted();
  }

  /** The source gets a moment to close its connections; the spawner connection's end then ends what is left. */
  async close(): Promise<void> {
    const source = this.#source;
    if (source) await Promise.race([source.close(), new Promise((resolve) => setTimeout(resolve, SOURCE_CLOSE_MS))]);
    this.#onClose();
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name) ?? this.#source?.tools().find((tool) => tool.name === name);
  }

  names(): string[] {
    return [...this.#tools.keys(), ...(this.#source?.tools().map((tool) => tool.name) ?? [])];
  }

  /** Made once, on the first model request that offers tools (a scripted echo never does); a source's every time. */
  specs(): ToolSpec[] {
    this.#specs ??= [...this.#tools.values()].map(specOf);
    return this.#source ? [...this.#specs, ...this.#source.tools().map(specOf)] : this.#specs;
  }
}

function specOf(tool: Tool): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters ?? (z.toJSONSchema(tool.input) as Record<string, unknown>),
  };
}
