// What no session of a confined host sees, beside the state dir: the tokens file, the host's home, the system's
// secrets, and every tenant's roots (a sandbox and the file tools mask those that lie in a session's view, never one
// that holds its workspace).
import { homedir } from "node:os";
import { resolve } from "node:path";
import { systemSecrets } from "./system-secrets.js";
import type { WorkspaceRoots } from "./workspace-roots.js";

export async function confinedHidden(roots: WorkspaceRoots, tokensFile: string | undefined): Promise<string[]> {
  if (!roots.confined) return [];
  return [...(tokensFile ? [resolve(tokensFile)] : []), homedir(), ...(await systemSecrets()), ...roots.all()];
}
