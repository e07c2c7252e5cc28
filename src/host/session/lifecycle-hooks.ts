// The host's lifecycle hooks, one typed registry: a session says what happened to it (a turn ended or is being
// cancelled, a tool call ended, a worker started or exited, the session closed) and whoever listens is told (the
// metrics, child sessions, traces). A session never knows who listens, and a listener that throws is logged, never
// felt by the session or by the other listeners.
import type { ToolKind } from "../../protocol/port.js";
import type { SpanData } from "../../protocol/trace.js";
import type { Logger } from "../../logger.js";

export interface LifecycleEvents {
  /** A turn was answered: its stop reason (or the error's reason) and how long it ran. */
  turnEnded: { sessionId: string; outcome: string; seconds: number };
  /** A turn is being cancelled (the client's cancel, a turn timeout, the host's): before it has wound down. */
  turnCancelling: { sessionId: string };
  /** A tool call's final update: from its announcement to it. */
  toolCallEnded: { sessionId: string; kind: ToolKind; failed: boolean; seconds: number };
  /**
   * A worker opened the session (restored it from its log when `restored`, `turns` of it), the start begun at
   * startedAtMs (epoch ms).
   */
  workerStarted: { sessionId: string; threadId: number; restored: boolean; turns: number; startedAtMs: number };
  /** The session's worker was released while it was idle (its next prompt restores it), begun at startedAtMs. */
  hibernated: { sessionId: string; reason: string; startedAtMs: number };
  /** A worker ended while its session still had it: crashed, or terminated (a hard cancel). */
  workerExited: { sessionId: string; kind: "crashed" | "terminated" };
  /** The session closed (its worker released, its commands ended). */
  sessionClosed: { sessionId: string };
  /** One request to the model ended (a retry is a request of its own), with the tokens the provider reported. */
  modelCallEnded: {
    sessionId: string;
    tenant: string | null;
    model: string;
    outcome: "ok" | "error";
    tokens: { prompt: number; completion: number; cached: number } | undefined;
  };
  /** A session's worker finished spans of a traced turn (the traces export them). */
  spansEnded: { sessionId: string; spans: SpanData[] };
}

export type LifecycleEvent = keyof LifecycleEvents;
type Listener<E extends LifecycleEvent> = (event: LifecycleEvents[E]) => void;
type Listeners = { [E in LifecycleEvent]: Array<Listener<E>> };

export class LifecycleHooks {
  readonly #logger: Logger;
  readonly #listeners: Listeners = {
    turnEnded: [],
    turnCancelling: [],
    toolCallEnded: [],
    workerStarted: [],
    hibernated: [],
    workerExited: [],
    sessionClosed: [],
    modelCallEnded: [],
    spansEnded: [],
  };

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Adds a listener; the returned function removes it. */
  on<E extends LifecycleEvent>(name: E, listener: Listener<E>): () => void {
    const listeners = this.#listeners[name];
    listeners.push(listener);
    return () => {
      const index = listeners.indexOf(listener);
      if (index >= 0) listeners.splice(index, 1);
    };
  }

  emit<E extends LifecycleEvent>(name: E, event: LifecycleEvents[E]): void {
    for (const listener of this.#listeners[name]) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.error({ err: error, hook: name }, "a lifecycle hook's listener threw");
      }
    }
  }
}
