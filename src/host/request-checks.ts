// What session/new, load, resume and list check alike before anything else: what this host does not support yet,
// and that a cwd is an absolute path.
import { isAbsolute } from "node:path";
import { invalidParams } from "./errors.js";

export function assertNoExtras(params: { mcpServers?: unknown[] | null; additionalDirectories?: string[] | null }): void {
  if ((params.mcpServers ?? []).length > 0) throw invalidParams("mcpServers", "MCP servers are not supported yet");
  if ((params.additionalDirectories ?? []).length > 0) throw invalidParams("additionalDirectories", "additional directories are not supported yet");
}

export function assertAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw invalidParams("cwd", `cwd must be an absolute path: ${cwd}`);
}
