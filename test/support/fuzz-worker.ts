// A session worker for the port fuzz, run by a host started with --worker-entry (fault injection). A prompt
// "/fuzz <seed> <count>" posts <count> messages generated from the seed on its ports: random values, events with one
// field made wrong, events of other turns, duplicate turn ends, huge batches, stray replies on the command port;
// then ends its turn properly. Any other prompt is echoed, so a worker the host replaced is seen to work.
import type { MessagePort } from "node:worker_threads";
import * as Comlink from "comlink";
import fc from "fast-check";
import { asHostMessage, type SessionTask, type WorkerInit } from "../../src/protocol/port.js";
import type { WorkerEvent } from "../../src/protocol/worker-events.js";

type Posted = { port: "events" | "commands"; data: unknown };

function portMessage(turnId: string): fc.Arbitrary<Posted> {
  const id = fc.oneof(fc.constant(turnId), fc.string(), fc.uuid(), fc.constant(""), fc.integer());
  const valid: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
    id.map((t) => ({ type: "assistant_message", turnId: t, blocks: ["fuzz"] })),
    id.map((t) => ({
      type: "tool_call",
      turnId: t,
      toolCallId: "tc",
      title: "t",
      kind: "execute",
      status: "pending",
      rawInput: {},
    })),
    id.map((t) => ({ type: "tool_call_update", turnId: t, toolCallId: "tc", status: "completed", result: "r" })),
    id.map((t) => ({ type: "thought", turnId: t, text: "hm" })),
    id.map((t) => ({ type: "usage", turnId: t, used: 1, size: 2 })),
    id.map((t) => ({
      type: "permission_request",
      turnId: t,
      requestId: "r1",
      toolCallId: "tc",
      title: "t",
      kind: "edit",
      rawInput: {},
    })),
    id.map((t) => ({ type: "turn_end", turnId: t, stopReason: "end_turn" })),
    id.map((t) => ({ type: "turn_error", turnId: t, code: -32603, message: "fuzz" })),
    fc.constant({ type: "log_line", level: "warn", msg: "fuzz" }),
  );
  const mutated = fc
    .record({ event: valid, key: fc.string({ maxLength: 12 }), value: fc.jsonValue({ maxDepth: 3 }) })
    .map(({ event, key, value }) => {
      const keys = Object.keys(event);
      return { ...event, [key.length % 2 ? keys[key.length % keys.length]! : key]: value };
    });
  return fc.oneof(
    fc
      .array(fc.oneof(valid, mutated), { minLength: 1, maxLength: 5 })
      .map((data) => ({ port: "events" as const, data })),
    fc.oneof(valid, mutated).map((data) => ({ port: "events" as const, data })),
    fc.jsonValue({ maxDepth: 4 }).map((data) => ({ port: "events" as const, data })),
    fc.integer({ min: 500, max: 5_000 }).map((n) => ({
      port: "events" as const,
      data: Array.from({ length: n }, () => ({ type: "thought", turnId, text: "x" })),
    })),
    fc
      .record({
        id: fc.oneof(fc.string(), fc.uuid()),
        type: fc.constantFrom("HANDLER", "RAW", "x"),
        value: fc.jsonValue({ maxDepth: 2 }),
      })
      .map((data) => ({ port: "commands" as const, data })),
    fc.jsonValue({ maxDepth: 3 }).map((data) => ({ port: "commands" as const, data })),
  );
}

export default function fuzzSession(task: SessionTask): Promise<never> {
  const events = task.events as MessagePort;
  const commands = task.commands as MessagePort;
  let init: WorkerInit | null = null;
  Comlink.expose(
    {
      start: (value: WorkerInit) => void (init = value),
      open: () => ({ ok: true, turns: 0, mode: init!.mode, model: init!.model, threadId: 0, shown: 0 }),
      setMode: () => {},
      setModel: () => {},
      regrant: () => {},
      stats: () => ({ activeMs: 0, heapUsedBytes: 0 }),
      replay: () => ({ turns: 0 }),
      dispose: () => {},
    },
    commands as Comlink.Endpoint,
  );
  events.on("message", (data: unknown) => {
    const message = asHostMessage(data);
    if (message?.type !== "prompt") return;
    const { turnId, text } = message;
    const fuzz = /^\/fuzz (\d+) (\d+)$/.exec(text);
    if (fuzz) {
      for (const posted of fc.sample(portMessage(turnId), { seed: Number(fuzz[1]), numRuns: Number(fuzz[2]) })) {
        (posted.port === "events" ? events : commands).postMessage(posted.data);
      }
    }
    const batch: WorkerEvent[] = [
      { type: "assistant_message", turnId, blocks: [`fuzz worker says: ${text}`] },
      { type: "turn_end", turnId, stopReason: "end_turn" },
    ];
    events.postMessage(batch);
  });
  return new Promise<never>(() => {});
}
