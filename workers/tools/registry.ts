// The tools a session offers its model. The host never sees this list: it only relays tool activity.
import * as z from "zod/mini";
import type { Tool, ToolSpec } from "./tool.js";

export class ToolRegistry {
  readonly #tools = new Map<string, Tool>();
  readonly #onClose: () => void;
  #specs: ToolSpec[] | null = null;

  /** onClose releases what the tools hold (the spawner connection) when the session worker is disposed. */
  constructor(tools: readonly Tool[] = [], onClose: () => void = () => {}) {
    for (const tool of tools) this.#tools.set(tool.name, tool);
    this.#onClose = onClose;
  }

  close(): void {
    this.#onClose();
  }

  get(name: string): Tool | undefined {
    return this.#tools.get(name);
  }

  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** Made once, on the first model request that offers tools (a scripted echo never does). */
  specs(): ToolSpec[] {
    return (this.#specs ??= [...this.#tools.values()].map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: z.toJSONSchema(tool.input) as Record<string, unknown>,
    })));
  }
}
