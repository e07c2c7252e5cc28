// Which roots bind which tenant: its own (the tokens file's root= columns), else --workspace-root; none at all (a
// host without tokens and without --workspace-root) leaves a session's cwd free, as on one's own machine.
import { isInside } from "../../protocol/paths.js";

export interface RootsConfig {
  /** Each tenant of the tokens file and its roots (real paths); empty without a tokens file. */
  byTenant: ReadonlyMap<string, readonly string[]>;
  /** --workspace-root (real paths); empty when not given. */
  fallback: readonly string[];
}

/** The roots a tenant's sessions must keep to; null: any directory (no roots are configured for it). */
export function rootsOf(config: RootsConfig, tenant: string | null): readonly string[] | null {
  const own = tenant === null ? undefined : config.byTenant.get(tenant);
  if (own && own.length > 0) return own;
  if (config.fallback.length > 0) return config.fallback;
  return null;
}

/** The tenants that would be open to every directory: no root of their own and no --workspace-root. */
export function tenantsWithoutRoots(config: RootsConfig): string[] {
  return [...config.byTenant].filter(([tenant]) => rootsOf(config, tenant) === null).map(([tenant]) => tenant);
}

/** Whether a real path lies in one of the roots. */
export function withinRoots(roots: readonly string[], real: string): boolean {
  return roots.some((root) => isInside(root, real));
}

/** Every root of every tenant and the fallback: what a session of one tenant must not see of another's. */
export function allRoots(config: RootsConfig): string[] {
  return [...new Set([...config.fallback, ...[...config.byTenant.values()].flat()])];
}
