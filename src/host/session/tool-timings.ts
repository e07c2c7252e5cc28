// Tool call timings for the metrics: from a call's announcement to its final update.
import type { ToolKind } from "../../protocol/port.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { SessionObserver } from "./session-deps.js";

export class ToolTimings {
  readonly #observer: SessionObserver;
  readonly #started = new Map<string, { kind: ToolKind; at: number }>();

  constructor(observer: SessionObserver) {
    this.#observer = observer;
  }

  see(event: WorkerEvent): void {
    if (event.type === "tool_call") this.#started.set(event.toolCallId, { kind: event.kind, at: performance.now() });
    else if (event.type === "tool_call_update" && (event.status === "completed" || event.status === "failed")) {
      const started = this.#started.get(event.toolCallId);
      if (!started) return;
      this.#started.delete(event.toolCallId);
      this.#observer.toolCallEnded(started.kind, event.status === "failed", (performance.now() - started.at) / 1000);
    }
  }
}
