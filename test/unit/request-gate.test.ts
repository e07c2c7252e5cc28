// The request gate of a remote connection: with maxInFlight answers owed, the next message is not read (and the
// connection's socket is paused) until an answer has gone out; prompts are not counted; responses to requests the
// host never sent are dropped.
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { expect, it } from "vitest";
import { RequestGate } from "../../src/remote/request-gate.js";

it("reads past the bound only once an answer has gone out; prompts apart; stray responses dropped", async () => {
  const incoming: AnyMessage[] = [
    { jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} },
    { jsonrpc: "2.0", id: 2, method: "a", params: {} },
    { jsonrpc: "2.0", id: 3, method: "b", params: {} },
    { jsonrpc: "2.0", id: 99, result: {} },
    { jsonrpc: "2.0", id: 4, method: "c", params: {} },
  ];
  let read = 0;
  const inner = {
    readable: new ReadableStream<AnyMessage>(
      {
        pull: (controller) =>
          void (read < incoming.length ? controller.enqueue(incoming[read++]!) : controller.close()),
      },
      { highWaterMark: 0 },
    ),
    writable: new WritableStream<AnyMessage>(),
  };
  const strays: unknown[] = [];
  const paused: boolean[] = [];
  const gate = new RequestGate(inner, {
    maxInFlight: 2,
    onMessage: () => {},
    onStrayResponse: (id) => strays.push(id),
    shown: (message) => message,
  });
  gate.attachInput({ pause: () => paused.push(true), resume: () => paused.push(false) });
  const reader = gate.stream.readable.getReader();
  const writer = gate.stream.writable.getWriter();

  // The prompt, then two requests: the bound.
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(((await reader.read()).value as { id: number }).id);
  expect(ids).toEqual([1, 2, 3]);
  let next: number | null = null;
  const fourth = reader.read().then((result) => (next = (result.value as { id: number }).id));
  await new Promise((resolve) => setImmediate(resolve));
  expect(next).toBeNull();
  expect(paused).toEqual([true]);

  // The prompt's answer does not count; the answer to 2 does. The stray response (99) never reaches the app.
  await writer.write({ jsonrpc: "2.0", id: 1, result: {} });
  await new Promise((resolve) => setImmediate(resolve));
  expect(next).toBeNull();
  await writer.write({ jsonrpc: "2.0", id: 2, result: {} });
  await fourth;
  expect(next).toBe(4);
  expect(paused).toEqual([true, false]);
  expect(strays).toEqual([99]);
});
