// A session's phase as a machine (src/host/session/session-phase.ts).
import { describe, expect, it } from "vitest";
import { type SessionEvent, type SessionPhase, SessionPhaseMachine } from "../../src/host/session/session-phase.js";

// A session's phase through a worker's whole life: woken (waiting for a slot, then starting), live, released,
// woken again, and closed; closed means no prompt and no worker, hibernated means the next prompt restores it.
describe("a worker's whole life", () => {
  it("dormant → waiting → starting → live → releasing → dormant → … → closing → closed", () => {
    const invalid: string[] = [];
    const state = new SessionPhaseMachine((phase, event) => invalid.push(`${phase}+${event}`));
    const seen: Array<[SessionPhase, boolean, boolean]> = [[state.phase, state.hibernated, state.closed]];
    const steps: SessionEvent[] = ["wake", "open", "opened", "release", "released", "wake", "open", "opened", "close"];
    for (const event of steps) {
      expect(state.on(event)).toBe(true);
      seen.push([state.phase, state.hibernated, state.closed]);
    }
    // The released worker winds down while the session closes.
    expect(state.on("released")).toBe(true);
    expect(state.on("closed")).toBe(true);
    seen.push([state.phase, state.hibernated, state.closed]);

    expect(seen).toEqual([
      ["dormant", true, false],
      ["waiting", false, false],
      ["starting", false, false],
      ["live", false, false],
      ["releasing", true, false],
      ["dormant", true, false],
      ["waiting", false, false],
      ["starting", false, false],
      ["live", false, false],
      ["closing", false, true],
      ["closed", false, true],
    ]);
    expect(invalid).toEqual([]);
  });
});

// A transition the session's table does not hold is told (the host logs it as a bug) and changes nothing; a closing
// or closed session's worker may still wind down (its open fail, its release end) without leaving the phase.
describe("a transition the table does not hold", () => {
  const drive = (state: SessionPhaseMachine, events: SessionEvent[]) => events.forEach((event) => state.on(event));

  it("refuses a transition the table does not hold, tells it, and stays in its phase", () => {
    const invalid: string[] = [];
    const state = new SessionPhaseMachine((phase, event) => invalid.push(`${phase}+${event}`));
    expect(state.on("opened")).toBe(false);
    expect(state.on("closed")).toBe(false);
    expect(state.phase).toBe("dormant");
    drive(state, ["wake", "open"]);
    // A second wake while one is under way, or a release of a worker that has not opened, is not a transition.
    expect(state.on("wake")).toBe(false);
    expect(state.on("release")).toBe(false);
    expect(state.phase).toBe("starting");
    expect(invalid).toEqual(["dormant+opened", "dormant+closed", "starting+wake", "starting+release"]);
  });

  it("leaves closed for nothing, while a closed session's worker may still wind down", () => {
    const invalid: string[] = [];
    const state = new SessionPhaseMachine((phase, event) => invalid.push(`${phase}+${event}`));
    drive(state, ["wake", "open", "close", "startFailed", "released", "exited", "closed"]);
    expect(state.phase).toBe("closed");
    expect(state.on("wake")).toBe(false);
    expect(state.on("close")).toBe(false);
    expect(state.on("startFailed")).toBe(true);
    expect(state.phase).toBe("closed");
    expect(invalid).toEqual(["closed+wake", "closed+close"]);
  });
});
