// What session/new, load, resume, fork and list check alike before anything else: what this host does not support
// yet, and that a cwd is an absolute path (of an existing directory, for a new session or a fork). (mcpServers are
// checked by mcp-servers.ts, a system prompt by system-prompt.ts.)
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { invalidParams } from "../../request-errors.js";

export function assertNoExtras(params: { additionalDirectories?: string[] | null }): void {
  if ((params.additionalDirectories ?? []).length > 0)
    throw invalidParams("additionalDirectories", "additional directories are not supported yet");
}

export function assertAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw invalidParams("cwd", `cwd must be an absolute path: ${cwd}`);
}

export async function assertDirectory(cwd: string): Promise<void> {
  assertAbsolute(cwd);
  const info = await stat(cwd).catch(() => null);
  if (!info?.isDirectory()) throw invalidParams("cwd", `cwd is not an existing directory: ${cwd}`);
}
