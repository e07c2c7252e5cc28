// Test support: a port for a server that must be told its port before it starts (a fleet host kept in HAProxy's
// config across restarts, a server taking PORT from its environment).
import { once } from "node:events";
import { createServer } from "node:net";

// Below Linux's ephemeral range (32768–60999): a port the kernel picked for a listen(0) is also one it may hand to any
// outgoing connection on the machine (PostgreSQL clients, other tests' hosts) between our check and the real listen.
const LOWEST = 20_000;
const COUNT = 12_000;

/** A port of 127.0.0.1 nobody listens on now, outside the range the kernel gives out for connections. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * COUNT);
    const server = createServer();
    server.listen(port, "127.0.0.1");
    try {
      await once(server, "listening");
    } catch (error) {
      if (attempt > 50) throw error;
      continue;
    }
    await new Promise((resolve) => server.close(resolve));
    return port;
  }
}
