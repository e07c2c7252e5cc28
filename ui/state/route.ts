// Which view is open, from the URL's fragment: #/ (the host), #/sessions (optionally ?state=…, what a glance card
// links to), #/session/<id>. Never the token.
import type { ListedState } from "./listed";

export type StateFilter = "any" | ListedState;
export const STATE_FILTERS: readonly StateFilter[] = [
  "any",
  "waiting",
  "running",
  "idle",
  "failed",
  "hibernated",
  "stored",
];

export type Route =
  { view: "glance" } | { view: "sessions"; state: StateFilter } | { view: "session"; sessionId: string };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "");
  const sessions = /^\/sessions(?:\?state=([a-z]+))?$/.exec(path);
  if (sessions) {
    const state = STATE_FILTERS.find((name) => name === sessions[1]) ?? "any";
    return { view: "sessions", state };
  }
  const session = /^\/session\/(.+)$/.exec(path);
  if (session) return { view: "session", sessionId: decodeURIComponent(session[1]!) };
  return { view: "glance" };
}

export function sessionHref(sessionId: string): string {
  return `#/session/${encodeURIComponent(sessionId)}`;
}

export function sessionsHref(state: StateFilter): string {
  return state === "any" ? "#/sessions" : `#/sessions?state=${state}`;
}
