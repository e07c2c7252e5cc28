// Test support: a TCP proxy in front of a listening host whose connections a test can cut at any moment, as a network
// that drops them would (both sides see the socket reset).
import { createServer, connect, type Server, type Socket } from "node:net";
import { once } from "node:events";

export interface CutProxy {
  /** The proxied URL: the host's, with the proxy's port. */
  url(hostUrl: string): string;
  /** Resets every connection open now; returns how many there were. */
  cut(): number;
  close(): Promise<void>;
}

export async function startCutProxy(hostUrl: string): Promise<CutProxy> {
  const target = new URL(hostUrl);
  const open = new Set<[Socket, Socket]>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    const pair: [Socket, Socket] = [client, upstream];
    open.add(pair);
    for (const socket of pair) socket.on("error", () => {}).on("close", () => open.delete(pair));
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  return {
    url: (url) => {
      const proxied = new URL(url);
      proxied.port = String(port);
      return proxied.toString();
    },
    cut: () => {
      const count = open.size;
      for (const pair of open) for (const socket of pair) socket.resetAndDestroy();
      open.clear();
      return count;
    },
    close: async () => {
      for (const pair of open) for (const socket of pair) socket.destroy();
      server.close();
      await once(server, "close");
    },
  };
}
