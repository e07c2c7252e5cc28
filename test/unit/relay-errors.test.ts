// A command a session's worker could not take never fails its caller (the record has it): a worker that died first
// is no error, the one that replaces it is made from the record; one that refused it is logged with the session id.
import pino from "pino";
import { expect, it } from "vitest";
import { WorkerGone, type WorkerLease } from "../../src/pool/worker-lease.js";
import { WorkerRelays } from "../../src/host/session/session-relays.js";
import { SessionPhaseMachine } from "../../src/host/session/session-phase.js";

it("a worker gone is logged at debug, a refusal as a warning with the session id; neither reaches the caller", async () => {
  const lines: Array<{ level: number; sessionId: string; command: string; msg: string }> = [];
  const log = pino({ level: "debug" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const state = new SessionPhaseMachine(() => expect.unreachable("no invalid transition"));
  for (const event of ["wake", "open", "opened"] as const) state.on(event);
  let fails: Error = new WorkerGone({ kind: "crashed", cause: "out of memory" });
  const worker: Pick<WorkerLease, "call"> = { call: () => Promise.reject(fails) };
  const relays = new WorkerRelays(state, () => worker, log.child({ sessionId: "s1" }));
  const hide = () => relays.tell({ name: "hide", send: (api) => api.hide("/w/inner") });

  await expect(hide()).resolves.toBeUndefined();
  fails = new Error("journal append failed: ENOSPC");
  await expect(hide()).resolves.toBeUndefined();

  expect(lines.map(({ level, sessionId, command }) => ({ level, sessionId, command }))).toEqual([
    { level: 20, sessionId: "s1", command: "hide" },
    { level: 40, sessionId: "s1", command: "hide" },
  ]);
});
