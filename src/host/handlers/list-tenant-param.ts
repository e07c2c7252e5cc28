// Whose sessions session/list lists: a tenant's connection its own, always; a connection that sees every tenant's
// (the operator's, stdio, a listener without tokens) every tenant's, or one tenant's when it asks so with
// `_meta["acp-session-host"].tenant`, the key each listed session names its tenant by.
import { invalidParams } from "../../request-errors.js";
import { LIST_META_KEY } from "../../store/listing.js";
import type { Peer } from "../connection/peer.js";

/** null: every tenant's sessions (tenantless ones among them). */
export function listedTenantFor(peer: Peer, meta: Record<string, unknown> | null | undefined): string | null {
  const own = peer.listedTenant;
  const ours = meta?.[LIST_META_KEY];
  const asked = typeof ours === "object" && ours !== null ? (ours as { tenant?: unknown }).tenant : undefined;
  if (asked === undefined || asked === null) return own;
  if (typeof asked !== "string" || asked === "")
    throw invalidParams(`_meta.${LIST_META_KEY}.tenant`, "a tenant to list is a tenant's name (a non-empty string)");
  // A tenant asking for another tenant's sessions is listed its own: it is never told whether that tenant exists.
  return own ?? asked;
}
