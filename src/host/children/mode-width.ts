// How much a session mode lets an agent do without a person, narrowest first: read-only changes nothing; ask changes
// only what the client approves, call by call; auto changes its workspace freely; full-access anything, unsandboxed.
// A child session's mode is its parent's or narrower, never wider.
import type { SessionModeId } from "../../protocol/port.js";

const WIDTH: Record<SessionModeId, number> = { "read-only": 0, ask: 1, auto: 2, "full-access": 3 };

/** Whether `mode` lets an agent do more than `than`. */
export function wider(mode: SessionModeId, than: SessionModeId): boolean {
  return WIDTH[mode] > WIDTH[than];
}

/** The narrower of two modes. */
export function narrowest(a: SessionModeId, b: SessionModeId): SessionModeId {
  return wider(a, b) ? b : a;
}
