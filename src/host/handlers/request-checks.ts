// What session/new, load, resume and list check alike before anything else: what this host does not support yet,
// and that a cwd is an absolute path. (mcpServers are checked by mcp-servers.ts.)
import { isAbsolute } from "node:path";
import { invalidParams } from "../errors.js";

export function assertNoExtras(params: { additionalDirectories?: string[] | null }): void {
  if ((params.additionalDirectories ?? []).length > 0) throw invalidParams("additionalDirectories", "additional directories are not supported yet");
}

export function assertAbsolute(cwd: string): void {
  if (!isAbsolute(cwd)) throw invalidParams("cwd", `cwd must be an absolute path: ${cwd}`);
}
