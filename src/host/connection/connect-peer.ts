// Serves one ACP connection: its own agent app over the host's shared session table. When the connection closes,
// the sessions attached to it are detached: their running turns finish and are journaled, then they hibernate by the
// usual rules until a client resumes or loads them, or --detached-close-ms closes them.
import type { AgentConnection, Stream } from "@agentclientprotocol/sdk/unstable";
import { createAgentApp } from "../handlers/acp-handlers.js";
import { closeIfStillDetached } from "./detached-close.js";
import { servingConnection } from "./sdk-console.js";
import type { HandlerHost } from "../handlers/handler-host.js";
import type { HostStatsMonitor } from "../ops/host-stats-monitor.js";
import type { Peer } from "./peer.js";

export function connectPeer(host: HandlerHost, peer: Peer, stats: HostStatsMonitor, stream: Stream): AgentConnection {
  const connection = servingConnection(peer.label, () => createAgentApp(host, peer, stats).connect(stream));
  peer.bind(connection);
  void connection.closed.then(() => {
    let detached = 0;
    host.followed?.dropPeer(peer);
    for (const session of host.sessions.values()) {
      const attached = session.dropAttachmentsOf(peer);
      if (session.attachment !== peer) {
        if (attached && !session.attended) closeIfStillDetached(host, session);
        continue;
      }
      session.detach(peer);
      closeIfStillDetached(host, session);
      detached++;
    }
    host.logger.info({ connection: peer.label, tenant: peer.tenant, detached }, "connection closed");
  });
  return connection;
}
