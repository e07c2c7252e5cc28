// session/new's `_meta["acp-session-host"].priority`: "interactive" (the default) or "batch", the session tree's
// place in its tenant's share of a provider endpoint (workers/gateway/fair-queue.ts): interactive trees go first.
import type { Priority } from "../../protocol/gateway-asks.js";
import { invalidParams } from "../../request-errors.js";
import { LIST_META_KEY } from "../../store/listing.js";

export function priorityFrom(meta: unknown): Priority {
  const ours = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[LIST_META_KEY] : undefined;
  const asked = typeof ours === "object" && ours !== null ? (ours as { priority?: unknown }).priority : undefined;
  if (asked === undefined || asked === null) return "interactive";
  if (asked !== "interactive" && asked !== "batch")
    throw invalidParams(`_meta.${LIST_META_KEY}.priority`, 'a priority is "interactive" or "batch"');
  return asked;
}
