// The sessions this token may see, newest activity first, a page of session/list at a time (its cursor), filtered in
// the page by text and state and by the host by tenant, child sessions nested under their parent. With an operator's token the states
// come from _host/status, read every 2 seconds: a session waiting for a permission stands out.
import { useEffect, useRef, useState } from "preact/hooks";
import { hostStatus, listSessions, type HostStatus, type SessionInfo } from "../acp/host-api";
import type { HostConnection } from "../acp/host-connection";
import { listed } from "../state/listed";
import { sessionHref } from "../state/route";
import { sessionTree } from "../state/session-tree";
import { usePolling } from "./use-polling";

type Row = HostStatus["sessionRows"][number];
/** How often the states are read again (from the host's rows: no worker is asked). */
const STATES_EVERY_MS = 2000;
const STATES = ["any", "running", "waiting", "idle", "hibernated", "stored"] as const;
type StateFilter = (typeof STATES)[number];
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

function stateOf(row: Row | undefined): Exclude<StateFilter, "any"> {
  if (!row) return "stored";
  if (row.waitingForPermission) return "waiting";
  return row.state === "busy" ? "running" : row.state === "live" ? "idle" : "hibernated";
}

/** The tenant filter's value for "every tenant", and a tenantless session's label. */
const ANY_TENANT = "";
const NO_TENANT = "(no tenant)";
/** The tenant the host is asked to list (tenantless sessions are only told apart in the page). */
const askedTenant = (tenant: string) => (tenant === ANY_TENANT || tenant === NO_TENANT ? null : tenant);

export function SessionsList(props: { connection: HostConnection }) {
  const [sessions, setSessions] = useState<SessionInfo[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  // null: this token is refused the host's figures (a tenant's), so no state is known.
  const [rows, setRows] = useState<Map<string, Row> | null>(null);
  const [text, setText] = useState("");
  const [state, setState] = useState<StateFilter>("any");
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
    async (_run, stopped) => {
      try {
        const status = await hostStatus(props.connection, 500);
        if (stopped()) return false;
        setRows(new Map(status.sessionRows.map((row) => [row.sessionId, row])));
        return true;
      } catch {
        // A tenant's token is refused the host's figures: the list shows no states.
        return false;
      }
    },
    STATES_EVERY_MS,
    [props.connection],
  );

  const needle = text.trim().toLowerCase();
  // Only the operator sees more than one tenant's sessions (and the host's figures): the filter is the operator's.
  const tenants = rows === null ? [] : [...known].sort();
  const shown = sessions.filter((session) => {
    if (rows !== null && tenant !== ANY_TENANT && tenantOf(session) !== tenant) return false;
    if (rows !== null && state !== "any" && stateOf(rows.get(session.sessionId)) !== state) return false;
    if (within > 0 && (!session.updatedAt || Date.now() - Date.parse(session.updatedAt) > within)) return false;
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
        {rows !== null && (
          <select
            id="state-filter"
            value={state}
            onChange={(event) => setState(event.currentTarget.value as StateFilter)}
          >
            {STATES.map((name) => (
              <option value={name} key={name}>
                {name === "any" ? "any state" : name}
              </option>
            ))}
          </select>
        )}
        {rows !== null && (
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
            <th>Title</th>
            {rows !== null && <th>Tenant</th>}
            {rows !== null && <th>State</th>}
            <th>Working directory</th>
            <th>Turns</th>
            <th>Last activity</th>
          </tr>
        </thead>
        <tbody>
          {sessionTree(shown, collapsed).map(({ session, depth, children, orphanOf }) => {
            const sessionState = rows === null ? "unknown" : stateOf(rows.get(session.sessionId));
            const open = !collapsed.has(session.sessionId);
            return (
              <tr
                key={session.sessionId}
                class={`session-row state-${sessionState} depth-${Math.min(depth, 6)}`}
                data-session-id={session.sessionId}
                data-depth={depth}
              >
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
                  <a href={sessionHref(session.sessionId)}>{session.title ?? session.sessionId}</a>
                  {orphanOf !== null && (
                    <span class="parent">
                      {" "}
                      child of <a href={sessionHref(orphanOf)}>{orphanOf.slice(0, 8)}</a>
                    </span>
                  )}
                </td>
                {rows !== null && (
                  <td>
                    <span class="badge tenant">{tenantOf(session)}</span>
                  </td>
                )}
                {rows !== null && (
                  <td>
                    <span class={`badge state-${sessionState}`}>
                      {sessionState === "waiting" ? "waiting for permission" : sessionState}
                    </span>
                  </td>
                )}
                <td class="cwd">{session.cwd}</td>
                <td>{listed(session).turns ?? ""}</td>
                <td>{session.updatedAt ? new Date(session.updatedAt).toLocaleString() : ""}</td>
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
