// A tenant's key for the provider's prompt cache (DeepSeek's user_id, OpenAI's prompt_cache_key): one per tenant, never
// per session, so the sessions of a fan-out that share a prefix share its cache. A hash, so the provider never learns
// the tenant's name from it.
import { createHash } from "node:crypto";

export function tenantCacheKey(tenant: string): string {
  return `ash-${createHash("sha256").update(tenant, "utf8").digest("hex").slice(0, 32)}`;
}
