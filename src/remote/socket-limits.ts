// Every socket the listener accepts counts, authenticated or not, until it closes: beyond --max-connections Node
// itself drops new ones (server.maxConnections), beyond --max-connections-per-address from one address they are
// closed here, before a byte of theirs is read. Each refusal is a warning, rate-limited per address.
import type { Server } from "node:net";
import type { Socket } from "node:net";
import type { RepeatedWarnings } from "./repeated-warnings.js";

export interface SocketLimitOptions {
  maxSockets: number;
  /** 0: no cap. */
  maxPerAddress: number;
}

export function limitSockets(server: Server, options: SocketLimitOptions, warnings: RepeatedWarnings): void {
  server.maxConnections = options.maxSockets;
  server.on("drop", (dropped?: { remoteAddress?: string }) =>
    warnings.warn(dropped?.remoteAddress, "socket refused: max-connections", { maxConnections: options.maxSockets }, "socket refused: --max-connections reached"),
  );
  if (options.maxPerAddress === 0) return;
  const perAddress = new Map<string, number>();
  server.on("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const open = perAddress.get(address) ?? 0;
    if (open >= options.maxPerAddress) {
      socket.destroy();
      warnings.warn(address, "socket refused: per address", { maxConnectionsPerAddress: options.maxPerAddress }, "socket refused: --max-connections-per-address reached");
      return;
    }
    perAddress.set(address, open + 1);
    socket.once("close", () => {
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
    });
  });
}
