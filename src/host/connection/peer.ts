// One ACP connection as the host sees it: whose it is (its tenant) and how to reach its client. A session is
// attached to at most one peer at a time; its updates and permission requests go to that peer only.
import type { AgentConnection, AgentContext } from "@agentclientprotocol/sdk";

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
  #lastActive = performance.now();

  constructor(label: string, tenant: string | null, tokenHash: string | null = null, operator = true) {
    this.label = label;
    this.tenant = tenant;
    this.tokenHash = tokenHash;
    this.operator = operator;
  }

  bind(connection: AgentConnection): void {
    this.#connection = connection;
  }

  get client(): AgentContext {
    if (!this.#connection) throw new Error("peer has no ACP connection yet");
    return this.#connection.client;
  }

  get closed(): boolean {
    return this.#connection?.signal.aborted ?? false;
  }

  /** Whether this peer may see a session of that tenant (a session of another tenant does not exist for it). */
  sees(sessionTenant: string | null): boolean {
    return this.tenant === null || this.tenant === sessionTenant;
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
