// The host at a glance: sessions by state (each card opens the sessions it counts), workers and memory against their
// bounds, the store, and charts of the last 15 minutes, drawn from the host's own samples from the first paint and
// read again every second (an operator's token: a tenant's lands on its sessions instead).
import { useRef, useState } from "preact/hooks";
import { hostStatus, type HostStatus } from "../acp/host-api";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import type { HostConnection } from "../acp/host-connection";
import { HostSamples } from "../state/host-samples";
import { Chart } from "./chart";
import { usePolling } from "./use-polling";
import { FleetTile } from "./fleet-tile";
import { sessionsHref, type StateFilter } from "../state/route";

const SAMPLE_MS = 1000;
/** Rows of _host/status read with the rows: the states counted and the turns summed are those of the first rows. */
const ROWS = 500;
/** The rows are read every this many samples (the host builds each one); the others read one row. */
const ROWS_EVERY = 5;

function mib(bytes: number): string {
  return `${(bytes / 2 ** 20).toFixed(0)} MiB`;
}

export function Glance(props: { connection: HostConnection }) {
  const samples = useRef(new HostSamples());
  const [status, setStatus] = useState<HostStatus | null>(null);
  const [rows, setRows] = useState<HostStatus["sessionRows"]>([]);
  const [refused, setRefused] = useState<string | null>(null);

  usePolling(
    async (run, stopped) => {
      const withRows = run % ROWS_EVERY === 0;
      try {
        const next = await hostStatus(props.connection, withRows ? ROWS : 1, { after: samples.current.lastAt });
        if (stopped()) return false;
        samples.current.add(next.history ?? []);
        setStatus(next);
        if (withRows) setRows(next.sessionRows);
      } catch (error) {
        if (stopped()) return false;
        if (error instanceof RequestError) {
          setRefused(error.message);
          return false;
        }
      }
      return true;
    },
    SAMPLE_MS,
    [props.connection],
  );

  if (refused !== null)
    return (
      <section class="glance">
        <h2>Host</h2>
        <p class="notice" id="glance-refused">
          The host's figures need an operator's token ({refused}). The sessions of this token's tenant are under
          Sessions.
        </p>
      </section>
    );
  if (status === null) return <p class="connecting">Reading the host's figures…</p>;

  const count = (test: (row: (typeof rows)[number]) => boolean) => rows.filter(test).length;
  // Open and running are the host's counts; the other states are read from the rows (the first 500 of them).
  const states: ReadonlyArray<readonly [string, number, StateFilter]> = [
    ["open", status.sessions.live, "any"],
    ["running", status.sessions.busy, "running"],
    ["waiting for permission", count((row) => row.waitingForPermission), "waiting"],
    ["idle", count((row) => row.state === "live" && !row.waitingForPermission), "idle"],
    ["hibernated", count((row) => row.state === "hibernated"), "hibernated"],
  ];
  const list = samples.current.samples;
  const x = list.map((sample) => sample.at);
  const models = [...new Set(list.flatMap((sample) => [...sample.tokensPerSecond.keys()]))].sort();

  return (
    <section class="glance" id="glance">
      <h2>Host</h2>
      <div class="tiles">
        {states.map(([name, value, filter]) => (
          <a
            class={`tile state-${name.replace(/ /g, "-")}${value > 0 ? " lit" : ""}`}
            key={name}
            href={sessionsHref(filter)}
            title={`The sessions it counts: ${name}`}
          >
            <span class="value">{value}</span>
            <span class="label">{name}</span>
          </a>
        ))}
        <div class="tile" id="tile-workers">
          <span class="value">
            {status.threads.workers} / {status.limits.maxLiveWorkers}
          </span>
          <span class="label">live workers / --max-live-workers</span>
        </div>
        <div class="tile" id="tile-rss">
          <span class="value">
            {mib(status.memory.rssBytes)} / {mib(status.limits.maxRssBytes)}
          </span>
          <span class="label">RSS / --max-rss-mb</span>
        </div>
        <div class={`tile ${status.store.reachable ? "" : "bad"}`}>
          <span class="value">{status.store.reachable ? "reachable" : "unreachable"}</span>
          <span class="label">
            {status.store.label}
            {status.store.shared ? ` (fleet, host ${status.store.hostId})` : ""}
          </span>
        </div>
        <FleetTile store={status.store} />
      </div>
      <p class="hint">
        Open and running count every session of the host; waiting, idle and hibernated are read from the first 500 rows
        of _host/status.
      </p>
      <div class="charts">
        <Chart
          id="chart-workers"
          title="Live workers"
          series={["workers"]}
          data={[x, list.map((sample) => sample.workers)]}
        />
        <Chart id="chart-rss" title="RSS (MiB)" series={["RSS"]} data={[x, list.map((sample) => sample.rssMiB)]} />
        <Chart
          id="chart-turns"
          title="Turns a second"
          series={["turns/s"]}
          data={[x, list.map((sample) => sample.turnsPerSecond)]}
        />
        {models.length > 0 && (
          <Chart
            id="chart-tokens"
            title="Model tokens a second, by tenant and model"
            series={models}
            data={[x, ...models.map((key) => list.map((sample) => sample.tokensPerSecond.get(key) ?? 0))]}
          />
        )}
      </div>
    </section>
  );
}
