// A session's phase through a worker's whole life: woken (waiting for a slot, then starting), live, released,
// woken again, and closed; closed means no prompt and no worker, hibernated means the next prompt restores it.
import { expect, it } from "vitest";
import { SessionPhaseMachine, type SessionEvent, type SessionPhase } from "../../src/host/session/session-phase.js";

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
