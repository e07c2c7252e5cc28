// The tools a session worker offers its model.
import type { WorkerInit } from "../../src/protocol/port.js";
import { ToolRegistry } from "./registry.js";

export function createTools(_init: WorkerInit): ToolRegistry {
  return new ToolRegistry([]);
}
