// What the host adds to a listed session (`_meta["acp-session-host"]`, src/store/listing.ts), read as the page needs it.
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";

/** A session open in the host has a state; one only in the store is "stored". */
export type ListedState = "running" | "waiting" | "idle" | "hibernated" | "failed" | "stored";

export interface Listed {
  turns?: number;
  /** Absent: a session made without a tenant. */
  tenant?: string;
  /** A child session's parent. */
  parentSessionId?: string;
  /** Present for a session open in the host. */
  state?: Exclude<ListedState, "stored">;
  /** Its last shown update (ISO 8601), live while a turn streams; present for a session open in the host. */
  lastActivityAt?: string;
  mode?: string;
  model?: string;
}

export function listed(session: SessionInfo): Listed {
  const meta = session._meta?.["acp-session-host"];
  return typeof meta === "object" && meta !== null ? (meta as Listed) : {};
}

export function stateOf(session: SessionInfo): ListedState {
  return listed(session).state ?? "stored";
}

/** When the session was last active: its live last activity where the host has it, else the store's. */
export function lastActivityOf(session: SessionInfo): string | null {
  return listed(session).lastActivityAt ?? session.updatedAt ?? null;
}
