// A transition the session's table does not hold is told (the host logs it as a bug) and changes nothing; a closing
// or closed session's worker may still wind down (its open fail, its release end) without leaving the phase.
import { expect, it } from "vitest";
import { SessionPhaseMachine, type SessionEvent } from "../../src/host/session/session-phase.js";

const drive = (state: SessionPhaseMachine, events: SessionEvent[]) => events.forEach((event) => state.on(event));

it("refuses what the table does not hold, and nothing leaves closed", () => {
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

  drive(state, ["close", "startFailed", "released", "exited", "closed"]);
  expect(state.phase).toBe("closed");
  expect(state.on("wake")).toBe(false);
  expect(state.on("close")).toBe(false);
  expect(state.on("startFailed")).toBe(true);
  expect(state.phase).toBe("closed");
  expect(invalid).toEqual([
    "dormant+opened",
    "dormant+closed",
    "starting+wake",
    "starting+release",
    "closed+wake",
    "closed+close",
  ]);
});
