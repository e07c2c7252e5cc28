// What the host adds to a listed session (`_meta["acp-session-host"]`, src/store/listing.ts), read as the page needs it.
import type { SessionInfo } from "@agentclientprotocol/sdk/unstable";

export interface Listed {
  turns?: number;
  /** Absent: a session made without a tenant. */
  tenant?: string;
  /** A child session's parent. */
  parentSessionId?: string;
}

export function listed(session: SessionInfo): Listed {
  const meta = session._meta?.["acp-session-host"];
  return typeof meta === "object" && meta !== null ? (meta as Listed) : {};
}
