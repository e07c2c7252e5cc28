// A session worker that breaks the port's contract on request, run by a host started with --worker-entry (fault
// injection). It answers open() with nonsense when the session's cwd says so, and a prompt "malformed event" with an
// event batch the main thread cannot parse; other prompts get a proper echo, so a replaced worker is seen to work.
import type { MessagePort } from "node:worker_threads";
import * as Comlink from "comlink";
import { asHostMessage, type SessionTask, type WorkerInit } from "../../src/protocol/port.js";
import type { WorkerEvent } from "../../src/protocol/worker-events.js";

export const MALFORMED_OPEN_CWD = "malformed-open";

export default function rogueSession(task: SessionTask): Promise<never> {
  const events = task.events as MessagePort;
  let init: WorkerInit | null = null;
  Comlink.expose(
    {
      start: (value: WorkerInit) => void (init = value),
      open: () =>
        init?.cwd.includes(MALFORMED_OPEN_CWD)
          ? { ok: "certainly", turns: -1 }
          : { ok: true, turns: 0, mode: init!.mode, model: init!.model, threadId: 0, shown: 0 },
      setMode: () => {},
      regrant: () => {},
      stats: () => ({ activeMs: 0, heapUsedBytes: 0 }),
      setModel: () => {},
      replay: () => ({ turns: 0 }),
      dispose: () => {},
    },
    task.commands as Comlink.Endpoint,
  );
  events.on("message", (data: unknown) => {
    const message = asHostMessage(data);
    if (message?.type !== "prompt") return;
    const { turnId, text } = message;
    if (text === "malformed event") return events.postMessage([{ type: "assistant_message", turnId, blocks: 42 }]);
    const batch: WorkerEvent[] = [
      { type: "assistant_message", turnId, blocks: [`rogue says: ${text}`] },
      { type: "turn_end", turnId, stopReason: "end_turn" },
    ];
    events.postMessage(batch);
  });
  return new Promise<never>(() => {});
}
