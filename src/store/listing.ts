// What session/list shows of a session beyond ACP's fields, the same for every store, and the archive filter.
import type { ForkPoint, ParentLink } from "../protocol/log/session-log.js";
import type { ArchiveFilter } from "./session-store.js";

export const LIST_META_KEY = "acp-session-host";

/**
 * `_meta["acp-session-host"]` of a listed session: its turns and creation time; its tenant (none for a session made
 * without a tenant: no key, as for a parent or a fork source it does not have); a child's parent; a fork's source.
 */
export function listedMeta(listed: {
  turns?: number | undefined;
  tenant?: string | null | undefined;
  createdAt: string;
  parent?: ParentLink | null | undefined;
  forkOf?: ForkPoint | null | undefined;
}): Record<string, unknown> {
  return {
    [LIST_META_KEY]: {
      ...(listed.turns !== undefined ? { turns: listed.turns } : {}),
      createdAt: listed.createdAt,
      ...(listed.tenant ? { tenant: listed.tenant } : {}),
      ...(listed.parent ? { parentSessionId: listed.parent.sessionId, depth: listed.parent.depth } : {}),
      ...(listed.forkOf ? { forkOf: listed.forkOf } : {}),
    },
  };
}

/** A session open in this host, as session/list shows it beside what the store keeps. */
export interface LiveListing {
  /** failed: its last turn ended in an error (the next prompt restores it). */
  state: "running" | "waiting" | "idle" | "hibernated" | "failed";
  /** Its last shown update, or its opening (ISO 8601): live while a turn streams, unlike the store's updatedAt. */
  lastActivityAt: string;
  mode: string;
  model: string;
}

/** A listed session with what its live record adds to `_meta["acp-session-host"]`. */
export function withLiveListing<T extends { _meta?: Record<string, unknown> | null }>(info: T, live: LiveListing): T {
  const listed = info._meta?.[LIST_META_KEY];
  return { ...info, _meta: { ...info._meta, [LIST_META_KEY]: { ...(listed as object), ...live } } };
}

export function archiveMatches(filter: ArchiveFilter, archived: boolean): boolean {
  return filter === "include" || (filter === "only") === archived;
}
