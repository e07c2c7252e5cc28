// A child session as an orchestrator sees it: made by one of its sessions' spawn_agent and announced with
// subagent_update; its own updates and permission requests reach the same connection under its own id.
import type { SessionUpdate, StateUpdate } from "@agentclientprotocol/sdk/unstable";

export type SubagentUpdate = Extract<SessionUpdate, { sessionUpdate: "subagent_update" }>;

/** What a child session's handle needs of its client. */
export interface ChildSessionClient {
  cancel(sessionId: string): Promise<void>;
  onSessionUpdate(sessionId: string, listener: (update: SessionUpdate) => void): () => void;
}

export class ChildSession {
  readonly sessionId: string;
  readonly parentSessionId: string;
  /** The parent's name for it, and what it is for. */
  title: string | null = null;
  description: string | null = null;
  cwd: string | null = null;
  /** running, idle (with its last stop reason), … as the last subagent_update said. */
  state: StateUpdate | null = null;
  /** The child's updates of its latest turn (since it was last announced running), in order. */
  readonly updates: SessionUpdate[] = [];
  readonly #client: ChildSessionClient;

  constructor(client: ChildSessionClient, parentSessionId: string, announced: SubagentUpdate) {
    this.#client = client;
    this.sessionId = announced.sessionId;
    this.parentSessionId = parentSessionId;
    this.patch(announced);
  }

  /** Cancels the child's turn in flight (a child announced with the cancel capability). */
  cancel(): Promise<void> {
    return this.#client.cancel(this.sessionId);
  }

  /** Listens to the child's updates; returns the function that stops listening. */
  onUpdate(listener: (update: SessionUpdate) => void): () => void {
    return this.#client.onSessionUpdate(this.sessionId, listener);
  }

  /** @internal A later subagent_update: what it sets replaces what was, what it leaves out stays. */
  patch(update: SubagentUpdate): void {
    if (update.title !== undefined) this.title = update.title;
    if (update.description !== undefined) this.description = update.description;
    if (update.cwd !== undefined) this.cwd = update.cwd;
    if (update.state !== undefined) this.state = update.state;
    // A new turn: the last one's updates are its parent's tool result by now.
    if (update.state?.state === "running") this.updates.length = 0;
  }

  /** @internal */
  record(update: SessionUpdate): void {
    this.updates.push(update);
  }
}
