// Tool call timings (the toolCallEnded hook): from a call's announcement to its final update.
import type { ToolKind } from "../../protocol/port.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { LifecycleHooks } from "./lifecycle-hooks.js";

export class ToolTimings {
  readonly #sessionId: string;
  readonly #hooks: LifecycleHooks;
  readonly #started = new Map<string, { kind: ToolKind; at: number }>();

  constructor(sessionId: string, hooks: LifecycleHooks) {
    this.#sessionId = sessionId;
    this.#hooks = hooks;
  }

  see(event: WorkerEvent): void {
    if (event.type === "tool_call") this.#started.set(event.toolCallId, { kind: event.kind, at: performance.now() });
    else if (event.type === "tool_call_update" && (event.status === "completed" || event.status === "failed")) {
      const started = this.#started.get(event.toolCallId);
      if (!started) return;
      this.#started.delete(event.toolCallId);
      this.#hooks.emit("toolCallEnded", {
        sessionId: this.#sessionId,
        kind: started.kind,
        failed: event.status === "failed",
        seconds: (performance.now() - started.at) / 1000,
      });
    }
  }
}
