// A request's directories against its tenant's workspace roots, before anything else of the request is acted on:
// the cwd and every additionalDirectories entry, each judged by its real path. A tenant with roots gets the cwd's
// real path back, which the session then keeps: a symlink swapped after this check cannot move its workspace.
import type { WorkspaceRoots } from "../roots/workspace-roots.js";
import { assertAbsolute } from "./request-checks.js";

export async function cwdWithinRoots(
  roots: WorkspaceRoots,
  tenant: string | null,
  params: { cwd: string; additionalDirectories?: string[] | null },
): Promise<string> {
  assertAbsolute(params.cwd);
  const [cwd] = await Promise.all([
    roots.check("cwd", params.cwd, tenant),
    ...(params.additionalDirectories ?? []).map((dir) => roots.check("additionalDirectories", dir, tenant)),
  ]);
  return cwd;
}
