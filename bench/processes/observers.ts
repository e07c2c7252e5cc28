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

async function observer(): Promise<Observer> {
  const socket = new WebSocket(wsUrl!);
  await once(socket, "open");
  // The tail of each notification: where its event id is.
  const tails: string[] = [];
  const answered = new Map<number, () => void>();
  socket.on("message", (data) => {
    const text = data.toString();
    if (text.includes('"method"')) tails.push(text.slice(-200));
    else answered.get((JSON.parse(text) as { id: number }).id)?.();
  });
  const call = (id: number, method: string, params: unknown) =>
    new Promise<void>((resolve) => {
      answered.set(id, resolve);
      socket.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  await call(0, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  await call(1, "session/attach", { sessionId, role: "observer" });
  return { saw: (eventId) => tails.some((tail) => tail.includes(`"eventId":"${eventId}"`)), socket };
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
