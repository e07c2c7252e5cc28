// A session worker's events go to the main thread in one message per turn of its event loop: what a turn posts
// across awaits that never wait on I/O (an echo turn) is one message, not one per await.
import { once } from "node:events";
import { MessageChannel } from "node:worker_threads";
import { expect, it } from "vitest";
import type { WorkerEvent } from "../../src/protocol/worker-events.js";
import { EventSink } from "../../workers/event-sink.js";

const log = (msg: string): WorkerEvent => ({ type: "log_line", level: "info", msg });

it("posts what one turn of the event loop queued as one message, in order", async () => {
  const { port1, port2 } = new MessageChannel();
  const messages: unknown[] = [];
  port2.on("message", (message: unknown) => messages.push(message));
  try {
    const sink = new EventSink(port1, null);
    sink.post(log("a"));
    await Promise.resolve();
    sink.post(log("b"));
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    sink.post(log("c"));
    await once(port2, "message");
    sink.post(log("d"));
    await once(port2, "message");
    expect(messages).toEqual([[log("a"), log("b"), log("c")], [log("d")]]);
  } finally {
    port1.close();
  }
});
