// A session's prompt in flight: at most one. It is answered once, from the end of its own turn (or by cancel,
// close, or the death of its worker), and only after every update of the turn has gone out.
import { randomUUID } from "node:crypto";
import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";

export interface Turn {
  readonly id: string;
  cancelRequested: boolean;
  /** Why the host cancelled it (recorded in its log); undefined for the client's session/cancel. */
  cancelReason?: string;
  graceTimer: NodeJS.Timeout | null;
  timeoutTimer: NodeJS.Timeout | null;
  readonly startedAt: number;
}

interface PendingTurn extends Turn {
  resolve(response: PromptResponse): void;
  reject(error: Error): void;
}

export class TurnSlot {
  #turn: PendingTurn | null = null;
  #answered = 0;
  #idleWaiters: Array<() => void> = [];
  /** outcome: a stop reason, or "error"; told once per turn, whoever ends it. */
  readonly #onEnded: (outcome: string, seconds: number) => void;

  constructor(onEnded: (outcome: string, seconds: number) => void) {
    this.#onEnded = onEnded;
  }

  get current(): Turn | null {
    return this.#turn;
  }

  /** Is turnId the turn in flight (not answered yet)? */
  holds(turnId: string): boolean {
    return this.#turn?.id === turnId;
  }

  /** Turns answered since the session was opened in this host. */
  get answered(): number {
    return this.#answered;
  }

  /** A new turn (the caller has checked that none is in flight) and the promise its prompt is answered with. */
  begin(): { turn: Turn; answer: Promise<PromptResponse> } {
    let turn!: PendingTurn;
    const answer = new Promise<PromptResponse>((resolve, reject) => {
      turn = {
        id: randomUUID(),
        resolve,
        reject,
        cancelRequested: false,
        graceTimer: null,
        timeoutTimer: null,
        startedAt: performance.now(),
      };
    });
    this.#turn = turn;
    return { turn, answer };
  }

  /** Resolves once no prompt is in flight. */
  whenIdle(): Promise<void> {
    if (!this.#turn) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Answers the turn once `after` (its updates, and its records where the host commits them) has settled; if `after`
   * fails, the turn fails with its error. false if it was not the turn in flight.
   */
  settle(turnId: string, response: PromptResponse, after: Promise<unknown>): boolean {
    const turn = this.#end(turnId, response.stopReason);
    if (turn)
      after.then(
        () => turn.resolve(response),
        (error: unknown) => turn.reject(error as Error),
      );
    return turn !== null;
  }

  fail(turnId: string, error: Error, after: Promise<void>): boolean {
    const turn = this.#end(turnId, "error");
    if (turn) void after.then(() => turn.reject(error));
    return turn !== null;
  }

  /** Ends the turn without answering it (the caller throws the answer itself). */
  abandon(turnId: string): boolean {
    return this.#end(turnId, "error") !== null;
  }

  #end(turnId: string, outcome: string): PendingTurn | null {
    const turn = this.#turn;
    if (!turn || turn.id !== turnId) return null;
    if (turn.graceTimer) clearTimeout(turn.graceTimer);
    if (turn.timeoutTimer) clearTimeout(turn.timeoutTimer);
    this.#turn = null;
    this.#answered++;
    this.#onEnded(outcome, (performance.now() - turn.startedAt) / 1000);
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
    return turn;
  }
}
