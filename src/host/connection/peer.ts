// One ACP connection as the host sees it: whose it is (its tenant) and how to reach its client. A session is
// attached to at most one peer at a time; its updates and permission requests go to that peer only.
import type { AgentConnection, AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk/unstable";
import type { WireMessage } from "./wire-message.js";

/** What the client said it understands (initialize), where the host sends something else to clients that do not. */
export interface PeerUnderstands {
  /** `subagents`: child sessions are announced (subagent_update) and their traffic reaches this connection. */
  subagents: boolean;
  /** `session.compaction`: compactions are reported as compaction_update and compaction_summary_chunk. */
  compaction: boolean;
  /** `session.notices`: live notices (a model request waiting on its provider) are sent to it. */
  notices: boolean;
}

/** A WebSocket's own way to write serialized messages. */
export interface DirectSend {
  /** Writes one; false when it cannot (the socket is not open). */
  send(message: WireMessage, done: () => void): boolean;
  /** Holds what is written until uncork: a batch of updates leaves in one write (calls nest). */
  cork(): void;
  uncork(): void;
}

export class Peer {
  /** For logs: "stdio", or the listener's connection number. */
  readonly label: string;
  /** null: the stdio connection, or a listener without --tokens-file: such a peer sees every session. */
  readonly tenant: string | null;
  /** The hash of the token that opened it: revoking that token closes it. */
  readonly tokenHash: string | null;
  /** May read the host-wide figures (_host/stats, _host/status): stdio, a host without tokens, an operator's token. */
  readonly operator: boolean;
  #connection: AgentConnection | null = null;
  #direct: DirectSend | null = null;
  /** Set while its direct writes are held (holdDirectWrites): the timer that lets them go. */
  #hold: NodeJS.Timeout | null = null;
  #lastActive = performance.now();
  /** Its attachments to sessions (session/attach) not ended: bounded by --max-attachments. */
  #attachments = 0;
  #understands: PeerUnderstands = { subagents: false, compaction: false, notices: false };

  constructor(label: string, tenant: string | null, tokenHash: string | null = null, operator = true) {
    this.label = label;
    this.tenant = tenant;
    this.tokenHash = tokenHash;
    this.operator = operator;
  }

  get attachments(): number {
    return this.#attachments;
  }

  /** One attachment of its began (+1) or ended (-1). */
  countAttachment(change: 1 | -1): void {
    this.#attachments += change;
  }

  bind(connection: AgentConnection): void {
    this.#connection = connection;
  }

  /**
   * A WebSocket's own send: what the host fans out to attached clients (an update serialized once for all of them)
   * is written there directly rather than through the SDK's pipeline of the connection, message by message.
   */
  sendDirectly(send: DirectSend): void {
    this.#direct = send;
  }

  /** Whether it has a direct way to its client (a WebSocket) that is open. */
  get writesDirectly(): boolean {
    return this.#direct !== null && !this.closed;
  }

  /**
   * Writes one JSON-RPC notification, already serialized, straight to the client (done: once written, or lost with
   * the connection); false where the connection has no direct way (Streamable HTTP, stdio): send it through client.
   */
  writeDirectly(message: WireMessage, done: () => void): boolean {
    return this.writesDirectly && this.#direct!.send(message, done);
  }

  /** Runs fn with the direct writes it makes held until it returns: one write system call for all of them. */
  batchingDirectWrites(): () => void {
    const direct = this.#direct;
    if (!direct || this.closed) return () => {};
    // What an observer's hold keeps goes first, so the batch is not held with it.
    this.#releaseHold();
    direct.cork();
    return () => direct.uncork();
  }

  /**
   * Holds what is written to its socket (direct writes and the SDK's alike, in order) for ms from now, unless it is
   * held already: the writes of that time leave in one system call.
   */
  holdDirectWrites(ms: number): void {
    const direct = this.#direct;
    if (this.#hold || !direct || this.closed) return;
    direct.cork();
    this.#hold = setTimeout(() => this.#releaseHold(), ms);
  }

  #releaseHold(): void {
    if (!this.#hold) return;
    clearTimeout(this.#hold);
    this.#hold = null;
    this.#direct!.uncork();
  }

  /** The client's capabilities from its initialize request. */
  initialized(capabilities: ClientCapabilities | undefined): void {
    this.#understands = {
      subagents: capabilities?.subagents != null,
      compaction: capabilities?.session?.compaction != null,
      notices: capabilities?.session?.notices != null,
    };
  }

  get understands(): PeerUnderstands {
    return this.#understands;
  }

  get client(): AgentContext {
    if (!this.#connection) throw new Error("peer has no ACP connection yet");
    return this.#connection.client;
  }

  get closed(): boolean {
    return this.#connection?.signal.aborted ?? false;
  }

  /**
   * Whether this peer may see a session of that tenant (a session of another tenant does not exist for it): a tenant
   * its own, the operator every tenant's.
   */
  sees(sessionTenant: string | null): boolean {
    return this.tenant === null || this.operator || this.tenant === sessionTenant;
  }

  /** The tenant whose sessions it lists; null: every tenant's. */
  get listedTenant(): string | null {
    return this.operator ? null : this.tenant;
  }

  touch(): void {
    this.#lastActive = performance.now();
  }

  get lastActive(): number {
    return this.#lastActive;
  }

  close(reason: string): void {
    this.#connection?.close(new Error(reason));
  }
}
