// The sessions this token may see, waiting for a permission first, then newest activity first, a page of
// session/list at a time (its cursor), filtered in the page by text and state and by the host by tenant (the
// operator's), child sessions nested under their parent. Each row's state and last activity are what session/list
// says of a session open in the host; its first page is read again every 2 seconds, so they stay live.
import { useEffect, useRef, useState } from "preact/hooks";
import { listSessions, type SessionInfo } from "../acp/host-api";
import type { HostConnection } from "../acp/host-connection";
import { lastActivityOf, listed, stateOf, type ListedState } from "../state/listed";
import { STATE_FILTERS, sessionHref, type StateFilter } from "../state/route";
import { sessionTree } from "../state/session-tree";
import { usePolling } from "./use-polling";

/** How often the first page is read again: the states and last activities of the sessions open in the host. */
const STATES_EVERY_MS = 2000;
const STATE_LABEL: Record<ListedState, string> = {
  waiting: "waiting for permission",
  running: "running",
  idle: "idle",
  failed: "failed",
  hibernated: "hibernated",
  stored: "stored",
};
/** "Last activity within": the label and its span in ms (0: any time). */
const WITHIN: ReadonlyArray<readonly [string, number]> = [
  ["any time", 0],
  ["the last hour", 3_600_000],
  ["the last day", 86_400_000],
  ["the last week", 604_800_000],
];

function tenantOf(session: SessionInfo): string {
  return listed(session).tenant ?? NO_TENANT;
}

/** Waiting for a permission first (someone must answer), the rest in the list's order. */
function waitingFirst(sessions: readonly SessionInfo[]): SessionInfo[] {
  return [...sessions].sort((a, b) => Number(stateOf(b) === "waiting") - Number(stateOf(a) === "waiting"));
}

/** The page read again, merged into what is shown: its sessions replace their earlier rows, new ones come first. */
function merged(shown: readonly SessionInfo[], fresh: readonly SessionInfo[]): SessionInfo[] {
  const byId = new Map(fresh.map((session) => [session.sessionId, session]));
  const kept = shown.map((session) => byId.get(session.sessionId) ?? session);
  const known = new Set(shown.map((session) => session.sessionId));
  return [...fresh.filter((session) => !known.has(session.sessionId)), ...kept];
}

/** The tenant filter's value for "every tenant", and a tenantless session's label. */
const ANY_TENANT = "";
const NO_TENANT = "(no tenant)";
/** The tenant the host is asked to list (tenantless sessions are only told apart in the page). */
const askedTenant = (tenant: string) => (tenant === ANY_TENANT || tenant === NO_TENANT ? null : tenant);

export function SessionsList(props: { connection: HostConnection; operator: boolean; state: StateFilter }) {
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [text, setText] = useState("");
  const [state, setState] = useState<StateFilter>(props.state);
  const [within, setWithin] = useState(0);
  const [tenant, setTenant] = useState(ANY_TENANT);
  // The tenants seen in any page so far: the filter's choices, kept while one tenant's sessions are listed.
  const [known, setKnown] = useState<ReadonlySet<string>>(new Set());
  // The last load asked for: an earlier one answered later (another tenant's) is dropped.
  const latest = useRef(0);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const toggle = (sessionId: string) =>
    setCollapsed((now) => {
      const next = new Set(now);
      if (!next.delete(sessionId)) next.add(sessionId);
      return next;
    });

  const load = async (from: string | null, forTenant: string) => {
    const asked = ++latest.current;
    setLoading(true);
    try {
      const page = await listSessions(props.connection, from, askedTenant(forTenant));
      if (asked !== latest.current) return;
      setKnown((now) => new Set([...now, ...page.sessions.map(tenantOf)]));
      setSessions((shown) => (from === null ? page.sessions : [...shown, ...page.sessions]));
      setCursor(page.nextCursor ?? null);
      setError(null);
    } catch (failure) {
      setError(String((failure as Error).message));
    } finally {
      if (asked === latest.current) setLoading(false);
    }
  };

  useEffect(() => void load(null, ANY_TENANT), [props.connection]);
  usePolling(
    async (run, stopped) => {
      if (run === 0) return true;
      try {
        const page = await listSessions(props.connection, null, askedTenant(tenant));
        if (stopped()) return false;
        setSessions((shown) => merged(shown, page.sessions));
      } catch {
        // The next read may answer: the rows keep what they showed.
      }
      return true;
    },
    STATES_EVERY_MS,
    [props.connection, tenant],
  );

  const needle = text.trim().toLowerCase();
  // Only the operator sees more than one tenant's sessions: the filter is the operator's.
  const tenants = props.operator ? [...known].sort() : [];
  const shown = waitingFirst(sessions).filter((session) => {
    if (props.operator && tenant !== ANY_TENANT && tenantOf(session) !== tenant) return false;
    if (state !== "any" && stateOf(session) !== state) return false;
    const active = lastActivityOf(session);
    if (within > 0 && (!active || Date.now() - Date.parse(active) > within)) return false;
    if (needle === "") return true;
    return [session.sessionId, session.title ?? "", session.cwd].some((field) => field.toLowerCase().includes(needle));
  });

  return (
    <section class="sessions">
      <h2>Sessions</h2>
      <div class="filters">
        <input
          id="filter"
          type="search"
          placeholder="Filter by title, cwd or id"
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <select
          id="state-filter"
          value={state}
          onChange={(event) => setState(event.currentTarget.value as StateFilter)}
        >
          {STATE_FILTERS.map((name) => (
            <option value={name} key={name}>
              {name === "any" ? "any state" : STATE_LABEL[name]}
            </option>
          ))}
        </select>
        {props.operator && (
          <select
            id="tenant-filter"
            value={tenant}
            onChange={(event) => {
              const chosen = event.currentTarget.value;
              setTenant(chosen);
              void load(null, chosen);
            }}
          >
            <option value={ANY_TENANT}>any tenant</option>
            {tenants.map((name) => (
              <option value={name} key={name}>
                {name}
              </option>
            ))}
          </select>
        )}
        <select id="within-filter" value={within} onChange={(event) => setWithin(Number(event.currentTarget.value))}>
          {WITHIN.map(([label, span]) => (
            <option value={span} key={span}>
              active in {label}
            </option>
          ))}
        </select>
        <button type="button" onClick={() => void load(null, tenant)}>
          Refresh
        </button>
      </div>
      {error !== null && <p class="error">{error}</p>}
      <table id="sessions-table">
        <thead>
          <tr>
            <th>Id</th>
            <th>Title</th>
            {props.operator && <th>Tenant</th>}
            <th>State</th>
            <th>Working directory</th>
            <th>Turns</th>
            <th>Children</th>
            <th>Last activity</th>
          </tr>
        </thead>
        <tbody>
          {sessionTree(shown, collapsed).map(({ session, depth, children, orphanOf }) => {
            const sessionState = stateOf(session);
            const active = lastActivityOf(session);
            const open = !collapsed.has(session.sessionId);
            return (
              <tr
                key={session.sessionId}
                class={`session-row state-${sessionState} depth-${Math.min(depth, 6)}`}
                data-session-id={session.sessionId}
                data-depth={depth}
              >
                <td class="id">
                  <a href={sessionHref(session.sessionId)} title={session.sessionId}>
                    <code>{session.sessionId.slice(0, 8)}</code>
                  </a>
                </td>
                <td class="title">
                  {children > 0 ? (
                    <button
                      type="button"
                      class="toggle"
                      aria-expanded={open}
                      title={open ? "Hide its child sessions" : "Show its child sessions"}
                      onClick={() => toggle(session.sessionId)}
                    >
                      {open ? "▾" : `▸ ${children}`}
                    </button>
                  ) : (
                    <span class="toggle-space" />
                  )}
                  <a href={sessionHref(session.sessionId)}>{session.title ?? "(untitled)"}</a>
                  {orphanOf !== null && (
                    <span class="parent">
                      {" "}
                      child of <a href={sessionHref(orphanOf)}>{orphanOf.slice(0, 8)}</a>
                    </span>
                  )}
                </td>
                {props.operator && (
                  <td>
                    <span class="badge tenant">{tenantOf(session)}</span>
                  </td>
                )}
                <td>
                  <span class={`badge state state-${sessionState}`}>{STATE_LABEL[sessionState]}</span>
                </td>
                <td class="cwd">{session.cwd}</td>
                <td class="turns">{listed(session).turns ?? ""}</td>
                <td class="children">{children}</td>
                <td class="last-activity">{active ? new Date(active).toLocaleString() : ""}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {loading && <p class="connecting">Loading…</p>}
      {!loading && cursor !== null && (
        <button type="button" id="more" onClick={() => void load(cursor, tenant)}>
          More
        </button>
      )}
      {!loading && shown.length === 0 && <p class="notice">No sessions.</p>}
    </section>
  );
}
