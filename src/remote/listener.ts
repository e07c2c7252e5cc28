// The remote listener: ACP at /acp over Streamable HTTP and WebSocket (the SDK's AcpServer and Node adapters),
// bearer-token tenants, a bound on connections, idle timeout, and GET /healthz. Each token gets an AcpServer of its
// own, so a connection id is usable only with the token that opened it, and revoking a token closes exactly the
// connections it opened.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { AgentConnection, Stream } from "@agentclientprotocol/sdk/unstable";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { WebSocketServer } from "ws";
import { connectPeer } from "../host/connection/connect-peer.js";
import type { HostContext } from "../host/host-context.js";
import type { HostStatsMonitor } from "../host/ops/host-stats.js";
import { Peer } from "../host/connection/peer.js";
import { ConfigError } from "../flags.js";
import { health } from "./health.js";
import { closingPromptly } from "./ws-closing.js";
import { urlHost } from "./listen-address.js";
import { callerKey, TokenGate, type Caller } from "./token-gate.js";
import type { TokenEntry } from "./tokens.js";

export const ACP_PATH = "/acp";
export const HEALTH_PATH = "/healthz";
/** The SDK's header that names an existing Streamable HTTP connection; a POST without it opens one. */
const CONNECTION_ID_HEADER = "acp-connection-id";

export interface RemoteOptions {
  host: string;
  port: number;
  /** null: no authentication (only allowed on loopback); every connection is tenantless. */
  tokensFile: string | null;
  /** PEM contents: serve HTTPS/WSS. */
  tls: { cert: string; key: string } | null;
  maxConnections: number;
  maxBufferedBytes: number;
  maxOutputStallMs: number;
  maxMessageBytes: number;
  /** 0: never. */
  idleTimeoutMs: number;
}

interface Door {
  caller: Caller;
  acp: AcpServer;
  http(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export class RemoteListener {
  readonly #host: HostContext;
  readonly #stats: HostStatsMonitor;
  readonly #options: RemoteOptions;
  readonly #server: Server;
  readonly #webSockets: WebSocketServer;
  readonly #doors = new Map<string, Door>();
  readonly #peers = new Set<Peer>();
  readonly #gate: TokenGate;
  #connectionsOpened = 0;
  #idleSweep: NodeJS.Timeout | null = null;

  private constructor(host: HostContext, stats: HostStatsMonitor, options: RemoteOptions, tokens: TokenEntry[] | null) {
    this.#host = host;
    this.#stats = stats;
    this.#options = options;
    this.#gate = new TokenGate(options.tokensFile, tokens, host.log);
    this.#server = options.tls ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }) : createHttpServer();
    this.#webSockets = new WebSocketServer({ noServer: true, maxPayload: options.maxMessageBytes });
    this.#server.on("request", (req, res) => this.#onRequest(req, res));
    this.#server.on("upgrade", (req, socket, head) => this.#onUpgrade(req, socket, head));
  }

  /** tokens: the tokens file as read at start (null without one). */
  static async start(host: HostContext, stats: HostStatsMonitor, options: RemoteOptions, tokens: TokenEntry[] | null): Promise<RemoteListener> {
    const listener = new RemoteListener(host, stats, options, tokens);
    await new Promise<void>((resolve, reject) => {
      listener.#server.once("error", (error) => reject(new ConfigError(`--listen ${options.host}:${options.port}: ${error.message}`)));
      listener.#server.listen(options.port, options.host, () => {
        listener.#server.off("error", reject);
        resolve();
      });
    });
    if (options.idleTimeoutMs > 0) {
      listener.#idleSweep = setInterval(() => listener.#closeIdle(), Math.min(5000, Math.max(50, options.idleTimeoutMs / 4)));
      listener.#idleSweep.unref();
    }
    return listener;
  }

  get url(): string {
    const address = this.#server.address() as AddressInfo;
    return `${this.#options.tls ? "https" : "http"}://${urlHost(address.address)}:${address.port}${ACP_PATH}`;
  }

  get connections(): number {
    return this.#peers.size;
  }

  /** SIGHUP: re-reads the tokens file; connections opened with a token no longer valid are closed. */
  async reloadTokens(): Promise<void> {
    const valid = await this.#gate.reload();
    if (!valid) return;
    let closed = 0;
    for (const [key, door] of this.#doors) {
      if (valid(door.caller)) continue;
      this.#doors.delete(key);
      void door.acp.close();
    }
    for (const peer of this.#peers) {
      if (valid(peer)) continue;
      peer.close("token revoked");
      closed++;
    }
    this.#host.log.info({ connectionsClosed: closed }, "tokens file reloaded");
  }

  /** Closes every connection and the listening socket. */
  async close(): Promise<void> {
    if (this.#idleSweep) clearInterval(this.#idleSweep);
    const servers = [...this.#doors.values()].map((door) => door.acp.close().catch(() => {}));
    this.#doors.clear();
    for (const peer of this.#peers) peer.close("host shutting down");
    await Promise.all(servers);
    this.#webSockets.close();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    const path = pathOf(req);
    if (path === HEALTH_PATH && req.method === "GET") {
      const { httpStatus, body } = health(this.#host);
      res.writeHead(httpStatus, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    if (path !== ACP_PATH) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("Not Found");
      return;
    }
    const caller = this.#gate.authenticate(req);
    if (!caller) {
      res.writeHead(401, { "WWW-Authenticate": "Bearer" }).end();
      return;
    }
    const opening = req.method === "POST" && req.headers[CONNECTION_ID_HEADER] === undefined;
    const refusal = opening ? this.#refuseNewConnection() : null;
    if (refusal) {
      res.writeHead(503, { "Content-Type": "text/plain", "Retry-After": "1" }).end(refusal);
      return;
    }
    this.#door(caller).http(req, res);
  }

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (pathOf(req) !== ACP_PATH) {
      refuseUpgrade(socket, 404, "Not Found");
      return;
    }
    const caller = this.#gate.authenticate(req);
    if (!caller) {
      refuseUpgrade(socket, 401, "Unauthorized", "WWW-Authenticate: Bearer\r\n");
      return;
    }
    const refusal = this.#refuseNewConnection();
    if (refusal) {
      refuseUpgrade(socket, 503, "Service Unavailable");
      return;
    }
    this.#door(caller).upgrade(req, socket, head);
  }

  #refuseNewConnection(): string | null {
    if (!this.#host.accepting) return "host is shutting down";
    if (this.#peers.size >= this.#options.maxConnections) {
      this.#host.log.warn({ maxConnections: this.#options.maxConnections }, "connection refused: --max-connections reached");
      return `too many connections (--max-connections ${this.#options.maxConnections})`;
    }
    return null;
  }

  #door(caller: Caller): Door {
    const key = callerKey(caller);
    const existing = this.#doors.get(key);
    if (existing) return existing;
    const acp = new AcpServer({
      createAgent: () => ({ connect: (stream: Stream) => this.#connect(caller, stream) }),
      maxBufferedBytes: this.#options.maxBufferedBytes,
      maxOutputStallMs: this.#options.maxOutputStallMs,
    });
    const door: Door = {
      caller,
      acp,
      http: createNodeHttpHandler(acp, { maxRequestBodyBytes: this.#options.maxMessageBytes }),
      upgrade: createNodeWebSocketUpgradeHandler(acp, closingPromptly(this.#webSockets)),
    };
    this.#doors.set(key, door);
    return door;
  }

  #connect(caller: Caller, stream: Stream): AgentConnection {
    const peer = new Peer(`c${++this.#connectionsOpened}`, caller.tenant, caller.tokenHash);
    // Every message from the client counts as activity for the idle timeout.
    const readable = stream.readable.pipeThrough(
      new TransformStream({
        transform(message, controller) {
          peer.touch();
          controller.enqueue(message);
        },
      }),
    );
    const connection = connectPeer(this.#host, peer, this.#stats, { readable, writable: stream.writable });
    this.#peers.add(peer);
    void connection.closed.then(() => this.#peers.delete(peer));
    this.#host.log.info({ connection: peer.label, tenant: peer.tenant }, "connection opened");
    return connection;
  }

  #closeIdle(): void {
    const now = performance.now();
    for (const peer of this.#peers) {
      if (now - peer.lastActive < this.#options.idleTimeoutMs) continue;
      if ([...this.#host.sessions.values()].some((session) => session.attachment === peer && session.busy)) continue;
      this.#host.log.info({ connection: peer.label, idleTimeoutMs: this.#options.idleTimeoutMs }, "idle connection closed");
      peer.close("idle timeout");
    }
  }
}

function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

function refuseUpgrade(socket: Duplex, status: number, text: string, headers = ""): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\n${headers}Content-Length: 0\r\nConnection: close\r\n\r\n`);
}
