// A command for a session's worker while a worker is still starting (drawn, maybe from the record before it had the
// command, not yet open) waits until the start has finished, keeps it in the record again (the opening may have
// adopted the log's settings) and then tells the worker that opened; with no worker drawn yet (dormant, waiting for
// a slot) the record alone has it, and the worker drawn later gets it in its init.
import pino from "pino";
import { expect, it } from "vitest";
import { WorkerRelays } from "../../src/host/session/session-relays.js";
import { SessionPhaseMachine } from "../../src/host/session/session-phase.js";
import type { SessionWorkerApi } from "../../src/protocol/session-worker-api.js";
import type { WorkerLease } from "../../src/pool/worker-lease.js";
import type { Remote } from "comlink";

const turn = () => new Promise((resolve) => setImmediate(resolve));

it("waits for the start, keeps the command again, then tells the opened worker; with no worker drawn, keeps it only", async () => {
  const state = new SessionPhaseMachine(() => expect.unreachable("no invalid transition"));
  const told: string[] = [];
  const api = { setMode: async (mode: string) => void told.push(`setMode ${mode}`) };
  const worker: Pick<WorkerLease, "call"> = { call: (command) => command(api as unknown as Remote<SessionWorkerApi>) };
  const relays = new WorkerRelays(state, () => (state.phase === "live" ? worker : null), pino({ level: "silent" }));
  const settings = { mode: "auto" };
  const setMode = (mode: string) =>
    relays.tell({ name: "setMode", keep: () => (settings.mode = mode), send: (api) => api.setMode(mode as never) });

  // Dormant, then waiting for a slot: the record has it at once, no worker is told.
  await setMode("ask");
  state.on("wake");
  await setMode("read-only");
  expect(settings.mode).toBe("read-only");
  expect(told).toEqual([]);

  state.on("open");
  let done = false;
  const telling = setMode("auto").then(() => (done = true));
  expect(settings.mode).toBe("auto");
  // The opening adopts its log's mode.
  settings.mode = "ask";
  await turn();
  expect(done).toBe(false);
  state.on("opened");
  await telling;
  expect(settings.mode).toBe("auto");
  expect(told).toEqual(["setMode auto"]);

  // A start that fails leaves the command with the record alone.
  state.on("release");
  state.on("released");
  state.on("wake");
  state.on("open");
  const failing = setMode("ask");
  await turn();
  state.on("startFailed");
  await failing;
  expect(settings.mode).toBe("ask");
  expect(told).toEqual(["setMode auto"]);
});
