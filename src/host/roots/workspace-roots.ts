// The directories each tenant's sessions may use, held by the main thread: read at start (and again when the tokens
// file is reloaded), real paths throughout. A cwd, an additional directory, a fork's or a child's cwd is checked here
// before any session exists; a path is judged where its symlinks lead.
import { realpath } from "node:fs/promises";
import { ConfigError } from "../../flags.js";
import { outsideWorkspaceRoots } from "../../request-errors.js";
import { rootsByTenant, type TokenEntry } from "../../remote/tokens.js";
import { realLocation } from "./real-path.js";
import { allRoots, rootsOf, tenantsWithoutRoots, withinRoots, type RootsConfig } from "./roots-of.js";

export class WorkspaceRoots {
  #config: RootsConfig;
  /** Whether any roots are configured: then every session's sandbox shows only what it must (docs/sandbox.md). */
  readonly confined: boolean;

  constructor(config: RootsConfig, confined: boolean) {
    this.#config = config;
    this.confined = confined;
  }

  /** A tenant's roots; null: any directory. */
  of(tenant: string | null): readonly string[] | null {
    return rootsOf(this.#config, tenant);
  }

  /** Every configured root: each session's file tools and sandbox hide those of the others that lie in its view. */
  all(): string[] {
    return allRoots(this.#config);
  }

  /**
   * The real path of `path` when it lies in the tenant's roots (or the tenant has none); otherwise the request is
   * refused (-32602, OUTSIDE_WORKSPACE_ROOTS, `field` named).
   */
  async check(field: string, path: string, tenant: string | null): Promise<string> {
    const roots = this.of(tenant);
    if (roots === null) return path;
    const real = await realLocation(path);
    if (!withinRoots(roots, real)) throw outsideWorkspaceRoots(field, path, roots);
    return real;
  }

  /** The tokens file was read again: its tenants' roots replace the previous ones, all or nothing. */
  async reload(tokens: readonly TokenEntry[]): Promise<void> {
    const config = { byTenant: await realRootsByTenant(tokens, "--tokens-file"), fallback: this.#config.fallback };
    refuseOpenTenants(config);
    this.#config = config;
  }
}

/**
 * The host's roots from its flags and tokens file. With a tokens file, a tenant with no root of its own and no
 * --workspace-root refuses the start (ConfigError, one line naming it): a multi-tenant host is never open by default.
 */
export async function loadWorkspaceRoots(
  workspaceRoot: readonly string[] | undefined,
  tokens: readonly TokenEntry[] | null,
): Promise<WorkspaceRoots> {
  const fallback = await Promise.all(
    (workspaceRoot ?? []).map((root) => realDir(root, () => `--workspace-root ${root}`)),
  );
  const config = { byTenant: await realRootsByTenant(tokens ?? [], "--tokens-file"), fallback };
  refuseOpenTenants(config);
  return new WorkspaceRoots(config, tokens !== null || fallback.length > 0);
}

function refuseOpenTenants(config: RootsConfig): void {
  const open = tenantsWithoutRoots(config);
  if (open.length > 0)
    throw new ConfigError(
      `--tokens-file: tenant ${open.join(", ")} has no root (token add NAME --root DIR) and no --workspace-root is given: refusing to serve every directory to it`,
    );
}

async function realRootsByTenant(tokens: readonly TokenEntry[], flag: string): Promise<Map<string, string[]>> {
  const byTenant = new Map<string, string[]>();
  for (const [tenant, roots] of rootsByTenant(tokens)) {
    const real = await Promise.all(
      roots.map((root) => realDir(root, () => `${flag}: tenant ${tenant}'s root ${root}`)),
    );
    byTenant.set(tenant, [...new Set(real)]);
  }
  return byTenant;
}

async function realDir(path: string, what: () => string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    throw new ConfigError(`${what()}: ${(error as Error).message}`);
  }
}
