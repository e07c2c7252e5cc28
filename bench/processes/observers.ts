// Observers of one session in a process of their own, as other clients would be: N raw WebSocket clients that attach
// as observers, read every frame and parse none but their own answers, so that what the bench measures is the
// host's cost (and the driver's event loop is not theirs). Prints "ready" once all are attached; to a line
// "wait <eventId>" on stdin it answers "saw" once every one has received that event; stdin's end closes them.
// Usage: node dist/bench/processes/observers.js <ws url> <session id> <count>
import { once } from "node:events";
import { createInterface } from "node:readline";
import { WebSocket } from "ws";

const [wsUrl, sessionId, countArg] = process.argv.slice(2);
const count = Number(countArg);
if (!wsUrl || !sessionId || !count) throw new Error("usage: observers <ws url> <session id> <count>");

interface Observer {
  saw(eventId: string): boolean;
  socket: WebSocket;
}

/** Frames kept of each observer's last ones, undecoded: enough to find the last event of a turn among them. */
const KEPT_TAILS = 16;

async function observer(): Promise<Observer> {
  // Frames are not decoded as they come (nor checked as UTF-8): a client in a process of its own costs the host
  // nothing more for what it does with them, and this one shares the host's cores.
  const socket = new WebSocket(wsUrl!, { skipUTF8Validation: true });
  await once(socket, "open");
  // The tail of each of the last notifications: where its event id is.
  const tails: Buffer[] = [];
  const answered = new Map<number, () => void>();
  socket.on("message", (data: Buffer) => {
    if (answered.size > 0) return answered.get((JSON.parse(data.toString()) as { id: number }).id)?.();
    tails.push(data.subarray(-200));
    if (tails.length > KEPT_TAILS) tails.shift();
  });
  const call = (id: number, method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      answered.set(id, () => {
        answered.delete(id);
        resolve();
      });
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  await call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  await call(1, "session/attach", { sessionId, role: "observer" });
  return {
    saw: (eventId) => tails.some((tail) => tail.toString().includes(`"eventId":"${eventId}"`)),
    socket,
  };
}

const observers: Observer[] = [];
for (let i = 0; i < count; i++) observers.push(await observer());
process.stdout.write("ready\n");

for await (const line of createInterface({ input: process.stdin })) {
  const eventId = line.startsWith("wait ") ? line.slice(5) : null;
  if (eventId === null) continue;
  while (!observers.every((o) => o.saw(eventId))) await new Promise((resolve) => setTimeout(resolve, 5));
  process.stdout.write("saw\n");
}
for (const o of observers) o.socket.close();
