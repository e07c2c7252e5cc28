// A session's commands to its worker (src/host/session/session-relays.ts): what a worker could not take, and a
// command while a worker is still starting.
import pino from "pino";
import { describe, expect, it } from "vitest";
import { WorkerGone, type WorkerLease } from "../../src/pool/worker-lease.js";
import { WorkerRelays } from "../../src/host/session/session-relays.js";
import { SessionPhaseMachine } from "../../src/host/session/session-phase.js";
import type { SessionWorkerApi } from "../../src/protocol/session-worker-api.js";
import type { Remote } from "comlink";

// A command a session's worker could not take never fails its caller (the record has it): a worker that died first
// is no error, the one that replaces it is made from the record; one that refused it is logged with the session id.
describe("a command the worker could not take", () => {
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
});

// A command for a session's worker while a worker is still starting (drawn, maybe from the record before it had the
// command, not yet open) waits until the start has finished, keeps it in the record again (the opening may have
// adopted the log's settings) and then tells the worker that opened; with no worker drawn yet (dormant, waiting for
// a slot) the record alone has it, and the worker drawn later gets it in its init.
describe("a command while a worker is starting", () => {
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  it("waits for the start, keeps the command again, then tells the opened worker; with no worker drawn, keeps it only", async () => {
    const state = new SessionPhaseMachine(() => expect.unreachable("no invalid transition"));
    const told: string[] = [];
    const api = { setMode: async (mode: string) => void told.push(`setMode ${mode}`) };
    const worker: Pick<WorkerLease, "call"> = {
      call: (command) => command(api as unknown as Remote<SessionWorkerApi>),
    };
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
});
