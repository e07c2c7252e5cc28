// How a browser presents its bearer token on a WebSocket: a browser cannot set an Authorization header on one, and a
// token in the URL would land in logs and history, so the token rides in Sec-WebSocket-Protocol as one offered
// subprotocol (base64url, since a subprotocol is an HTTP token), beside ACP_SUBPROTOCOL, which the host picks and
// echoes: the token entry is never echoed. Kubernetes' API server does the same
// (base64url.bearer.authorization.k8s.io.<token>). Shared by the listener and the dashboard page, so no Node import.

/** The subprotocol the host echoes to a browser that offered it. */
export const ACP_SUBPROTOCOL = "acp.v1";
/** The prefix of the offered subprotocol that carries the token, base64url-encoded (no padding). */
export const BEARER_SUBPROTOCOL_PREFIX = "base64url.bearer.acp-session-host.";
