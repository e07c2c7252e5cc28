// `_meta["acp-session-host"].workspace` of session/new and session/fork asks for a copy-on-write view of a directory
// (issue 66). This host does not make them yet: such a request is refused, never answered with a session that would
// share the directory it asked not to write.
import { invalidParams } from "../../request-errors.js";
import { LIST_META_KEY } from "../../store/listing.js";

export function assertNoWorkspaceMeta(meta: unknown): void {
  const ours = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>)[LIST_META_KEY] : undefined;
  const asked = typeof ours === "object" && ours !== null ? (ours as { workspace?: unknown }).workspace : undefined;
  if (asked === undefined || asked === null) return;
  throw invalidParams(
    `_meta.${LIST_META_KEY}.workspace`,
    "copy-on-write workspaces are not available on this host: it refuses rather than share the directory",
  );
}
