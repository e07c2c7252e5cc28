// The worker's side of child sessions: spawn_agent asks the host for a child (a child_request event) and waits for the
// host's child_result message. The worker never makes a session itself: the host checks the request, creates or
// reuses the child in a worker of its own, runs the prompt there and answers with the child's final message.
import type { ChildOutcome } from "../../src/protocol/port.js";
import type { TraceParent } from "../../src/protocol/trace.js";
import type { EventSink } from "../event-sink.js";

export interface ChildAsk {
  turnId: string;
  toolCallId: string;
  prompt: string;
  mode?: string | undefined;
  session?: string | undefined;
  cwd?: string | undefined;
  title?: string | undefined;
  description?: string | undefined;
  /** The spawn_agent call's span (a traced turn): the child's turn hangs under it. */
  trace?: TraceParent | undefined;
}

export class ChildRequests {
  readonly #events: EventSink;
  readonly #waiting = new Map<string, (outcome: ChildOutcome | null) => void>();

  constructor(events: EventSink) {
    this.#events = events;
  }

  /** The child's outcome; null when the turn was cancelled first (the host cancels the child's turn itself). */
  ask(request: ChildAsk, signal: AbortSignal): Promise<ChildOutcome | null> {
    if (signal.aborted) return Promise.resolve(null);
    const requestId = crypto.randomUUID();
    return new Promise<ChildOutcome | null>((resolve) => {
      const settle = (outcome: ChildOutcome | null) => {
        this.#waiting.delete(requestId);
        signal.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      const onAbort = () => settle(null);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#waiting.set(requestId, settle);
      const { turnId, toolCallId, prompt, ...options } = request;
      const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
      this.#events.post({ type: "child_request", turnId, requestId, toolCallId, prompt, ...given });
    });
  }

  /** The host's answer; one for a request that is no longer waited for (its turn was cancelled) is dropped. */
  settle(requestId: string, outcome: ChildOutcome): void {
    this.#waiting.get(requestId)?.(outcome);
  }
}
