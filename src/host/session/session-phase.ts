// Where a session stands with its worker: one explicit phase, changed only by the events in one table. A transition
// the table does not hold is a bug: it is logged loudly and the phase stays as it was.
//
//   dormant            ─wake─▶        waiting    a worker is needed
//   waiting            ─open─▶        starting   it has its slot: a worker is drawn from the record and opened
//   starting           ─opened─▶      live
//   waiting, starting  ─startFailed─▶ dormant
//   live               ─release─▶     releasing  ─released─▶ dormant   (hibernation, the watchdog, a dropped worker)
//   live               ─exited─▶      dormant    it crashed, or a hard cancel ended it
//   live, releasing    ─wake─▶        waiting    the wake replaces a dead worker, or waits for the release
//   any other phase    ─close─▶       closing    ─closed─▶ closed
//
// Turns and replays run beside the phase (a turn waits in `waiting` for its worker); the phase says only what the
// session's worker is, and so what a command for it must do (see session-relays.ts).

export type SessionPhase =
  /** No worker: never started, hibernated, or its worker died. The next wake restores the session from its log. */
  | "dormant"
  /** A wake waits for a worker slot (or for its last worker's thread to end): no worker has been drawn yet. */
  | "waiting"
  /** A worker is being made from the record and opened: it may have read the record's settings already. */
  | "starting"
  /** An opened worker (alive, or dead with its exit not yet seen). */
  | "live"
  /** Its worker is being released (hibernation, the watchdog, a worker dropped): no wake waits. */
  | "releasing"
  /** close (or the store's loss of the session) is under way: no worker will start again. */
  | "closing"
  | "closed";

export type SessionEvent =
  /** A wake began: a worker is needed. */
  | "wake"
  /** The wake has its slot: a worker is being made. */
  | "open"
  /** The worker opened the session. */
  | "opened"
  /** The wake failed (no slot within the memory budget, the worker could not open, the session closed). */
  | "startFailed"
  /** The session's worker is being released. */
  | "release"
  /** A release has ended: the worker's thread is gone. */
  | "released"
  /** The session's worker ended without being released (a crash, a hard cancel). */
  | "exited"
  | "close"
  | "closed";

/** A closing (or closed) session's worker still winds down: what it does changes nothing. */
function windingDown(phase: "closing" | "closed"): Partial<Record<SessionEvent, SessionPhase>> {
  return { opened: phase, startFailed: phase, release: phase, released: phase, exited: phase };
}

export const TRANSITIONS: Readonly<Record<SessionPhase, Partial<Record<SessionEvent, SessionPhase>>>> = {
  dormant: {
    wake: "waiting",
    close: "closing",
  },
  waiting: {
    open: "starting",
    startFailed: "dormant",
    // The release a wake waits for ends; the dead worker a wake replaces has its exit seen.
    released: "waiting",
    exited: "waiting",
    close: "closing",
  },
  starting: {
    opened: "live",
    startFailed: "dormant",
    // The worker died while it opened: the open fails with it (startFailed follows).
    exited: "starting",
    close: "closing",
  },
  live: {
    release: "releasing",
    exited: "dormant",
    // Its worker died and a wake came before its exit was seen.
    wake: "waiting",
    close: "closing",
  },
  releasing: {
    released: "dormant",
    wake: "waiting",
    close: "closing",
  },
  closing: { ...windingDown("closing"), closed: "closed" },
  closed: windingDown("closed"),
};

/** The phase a session in `phase` goes to on `event`; null: the table has no such transition. */
export function transition(phase: SessionPhase, event: SessionEvent): SessionPhase | null {
  return TRANSITIONS[phase][event] ?? null;
}

export class SessionPhaseMachine {
  #phase: SessionPhase = "dormant";
  readonly #onInvalid: (phase: SessionPhase, event: SessionEvent) => void;
  readonly #onChange: Array<() => void> = [];

  /** onInvalid: told of a transition the table does not hold (a bug: log it loudly). */
  constructor(onInvalid: (phase: SessionPhase, event: SessionEvent) => void) {
    this.#onInvalid = onInvalid;
  }

  get phase(): SessionPhase {
    return this.#phase;
  }

  /** Closing or closed: no worker starts again, no prompt is taken. */
  get closed(): boolean {
    return this.#phase === "closing" || this.#phase === "closed";
  }

  /** No worker, and none being woken: the next prompt restores the session from its log. */
  get hibernated(): boolean {
    return this.#phase === "dormant" || this.#phase === "releasing";
  }

  /** Applies event; false (the phase unchanged, the bug told) when the table has no such transition. */
  on(event: SessionEvent): boolean {
    const next = transition(this.#phase, event);
    if (next === null) {
      this.#onInvalid(this.#phase, event);
      return false;
    }
    const changed = next !== this.#phase;
    this.#phase = next;
    if (changed) for (const listener of this.#onChange.splice(0)) listener();
    return true;
  }

  /** Resolves at the next change of phase. */
  changed(): Promise<void> {
    return new Promise((resolve) => this.#onChange.push(resolve));
  }
}
