// The fleet's hosts as the shared store knows them: each host holding a live lease, with how many sessions. Nothing
// on a store of one host.
import type { HostStatus } from "../acp/host-api";

export function FleetTile(props: { store: HostStatus["store"] }) {
  const hosts = props.store.fleetHosts;
  if (!props.store.shared || hosts === undefined) return null;
  return (
    <div class={`tile ${hosts === null ? "bad" : ""}`} id="tile-fleet">
      <span class="value">{hosts === null ? "unknown" : `${hosts.length} host${hosts.length === 1 ? "" : "s"}`}</span>
      <span class="label">holding sessions in the store</span>
      {hosts !== null && (
        <ul class="fleet-hosts">
          {hosts.map((host) => (
            <li key={host.hostId} data-host-id={host.hostId}>
              {host.hostId}: {host.sessions} session{host.sessions === 1 ? "" : "s"}
              {host.hostId === props.store.hostId ? " (this host)" : ""}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
