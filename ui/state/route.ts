// Which view is open, from the URL's fragment: #/ (the host), #/sessions, #/session/<id>. Never the token.
export type Route = { view: "glance" } | { view: "sessions" } | { view: "session"; sessionId: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "");
  if (path === "/sessions") return { view: "sessions" };
  const session = /^\/session\/(.+)$/.exec(path);
  if (session) return { view: "session", sessionId: decodeURIComponent(session[1]!) };
  return { view: "glance" };
}

export function sessionHref(sessionId: string): string {
  return `#/session/${encodeURIComponent(sessionId)}`;
}
