// The bearer token a browser's WebSocket upgrade carries in Sec-WebSocket-Protocol (src/protocol/ws-bearer.ts), and
// the subprotocol the host answers with.
import type { IncomingMessage } from "node:http";
import { ACP_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX } from "../protocol/ws-bearer.js";

/** The token of the upgrade's bearer subprotocol entry, or null (none, or not base64url). */
export function subprotocolToken(req: IncomingMessage): string | null {
  const header = req.headers["sec-websocket-protocol"];
  if (typeof header !== "string") return null;
  for (const entry of header.split(",")) {
    const offered = entry.trim();
    if (!offered.startsWith(BEARER_SUBPROTOCOL_PREFIX)) continue;
    const encoded = offered.slice(BEARER_SUBPROTOCOL_PREFIX.length);
    if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return null;
    const token = Buffer.from(encoded, "base64url").toString("utf8");
    return token === "" ? null : token;
  }
  return null;
}

/**
 * ws's choice among the offered subprotocols: ACP's when offered, else the first that carries no token (a client that
 * offers a few of its own still gets one back), else none. The token entry is never echoed.
 */
export function chooseSubprotocol(offered: Set<string>): string | false {
  if (offered.has(ACP_SUBPROTOCOL)) return ACP_SUBPROTOCOL;
  for (const protocol of offered) if (!protocol.startsWith(BEARER_SUBPROTOCOL_PREFIX)) return protocol;
  return false;
}

/**
 * Whether a browser's upgrade came from a page of this host: its Origin's host is the Host it asked for. The token is
 * what authenticates; this keeps a page of another origin that somehow holds a token from using it from there.
 */
export function sameOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
