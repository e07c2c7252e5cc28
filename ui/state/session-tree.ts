// The listed sessions as a tree: a child under its parent when its parent is listed too (else at the top, naming its
// parent), each level in the list's order (newest activity first); a collapsed session's descendants are left out.
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";
import { listed } from "./listed";

export interface TreeRow {
  session: SessionInfo;
  depth: number;
  /** How many of the shown sessions are its children. */
  children: number;
  /** Its parent when that is not shown above it. */
  orphanOf: string | null;
}

export function sessionTree(sessions: readonly SessionInfo[], collapsed: ReadonlySet<string>): TreeRow[] {
  const ids = new Set(sessions.map((session) => session.sessionId));
  const childrenOf = new Map<string, SessionInfo[]>();
  const roots: SessionInfo[] = [];
  for (const session of sessions) {
    const parent = listed(session).parentSessionId;
    if (parent !== undefined && parent !== session.sessionId && ids.has(parent)) {
      const siblings = childrenOf.get(parent) ?? [];
      siblings.push(session);
      childrenOf.set(parent, siblings);
    } else roots.push(session);
  }
  const rows: TreeRow[] = [];
  // A parent link that loops (never written by the host) is shown once, not followed again.
  const placed = new Set<string>();
  const place = (session: SessionInfo, depth: number) => {
    if (placed.has(session.sessionId)) return;
    placed.add(session.sessionId);
    const children = childrenOf.get(session.sessionId) ?? [];
    const parent = listed(session).parentSessionId;
    rows.push({
      session,
      depth,
      children: children.length,
      orphanOf: depth === 0 && parent !== undefined ? parent : null,
    });
    if (!collapsed.has(session.sessionId)) for (const child of children) place(child, depth + 1);
  };
  for (const root of roots) place(root, 0);
  return rows;
}
