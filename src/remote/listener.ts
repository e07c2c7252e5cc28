// The remote listener: ACP at /acp over Streamable HTTP and WebSocket (the SDK's AcpServer and Node adapters),
// bearer-token tenants, bounds on sockets (socket-slots.ts: at the cap an unauthenticated one makes room) and on
// connections (per tenant too), idle timeout, and GET /healthz. Each token gets an AcpServer of its own, so a
// connection id is usable only with the token that opened it, and revoking a token closes exactly the connections it
// opened. A socket has --handshake-timeout-ms to send a request (Node's header and request timeouts); a refused
// request ends its connection (refusal.ts), and one refused before it authenticates (Node's parser's 400, 408 and 431
// too) is answered at its address's pace (socket-slots.ts), so sending it again as soon as it is answered is no loop
// on the main thread; each connection's requests in flight are bounded (request-gate.ts), and ws hands its messages
// on one per turn of the event loop, so one connection's flood is answered between the other connections' messages,
// not before them.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { AgentConnection, Stream } from "@agentclientprotocol/sdk/unstable";
import { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } from "@agentclientprotocol/sdk/experimental/node";
import { AcpServer } from "@agentclientprotocol/sdk/experimental/server";
import { WebSocketServer, type WebSocket } from "ws";
import { connectPeer } from "../host/connection/connect-peer.js";
import { mayOpenConnection, nameSdkConnection } from "../host/connection/sdk-console.js";
import type { ListenerHost } from "./listener-host.js";
import type { HostStatsMonitor } from "../host/ops/host-stats-monitor.js";
import { Peer } from "../host/connection/peer.js";
import { ConfigError } from "../flags.js";
import { health, readiness } from "./health.js";
import { closeIfRefused, isClosing, refuseClientError, refuseRequest, refuseUpgrade } from "./refusal.js";
import { RepeatedWarnings } from "./repeated-warnings.js";
import { RequestGate } from "./request-gate.js";
import { SocketSlots } from "./socket-slots.js";
import { closingPromptly } from "./ws-closing.js";
import { dropBinaryFrames } from "./ws-text-only.js";
import { directSend } from "./direct-send.js";
import { hostHeaderIsLoopback, urlHost } from "./listen-address.js";
import { ErrorRedaction, type Secret } from "./error-redaction.js";
import { isPostgresUrl, redactedUrl } from "../host-options.js";
import { callerKey, TokenGate, type Caller } from "./token-gate.js";
import type { TokenEntry } from "./tokens.js";
import { isUiPath, serveUi } from "./dashboard/serve-ui.js";
import type { UiFiles } from "./dashboard/ui-files.js";
import { chooseSubprotocol, sameOrigin } from "./ws-bearer-token.js";

export const ACP_PATH = "/acp";
export const HEALTH_PATH = "/healthz";
export const READY_PATH = "/readyz";
/** The SDK's header that names an existing Streamable HTTP connection; a POST without it opens one. */
const CONNECTION_ID_HEADER = "acp-connection-id";
const MISDIRECTED = "this host serves only a Host header naming a loopback address (it has no tokens file)";

export interface RemoteOptions {
  host: string;
  port: number;
  /** null: no authentication (only allowed on loopback); every connection is tenantless. */
  tokensFile: string | null;
  /** PEM contents: serve HTTPS/WSS. */
  tls: { cert: string; key: string } | null;
  /** Sockets (every one, authenticated or not) and client connections. */
  maxConnections: number;
  /** Sockets from one remote address; 0: no cap. */
  maxConnectionsPerAddress: number;
  /** Client connections of one tenant, and sockets its requests hold. */
  maxConnectionsPerTenant: number;
  /** Time for a socket to send a request's headers, and a request its body (and a TLS socket its handshake). */
  handshakeTimeoutMs: number;
  /** Requests of one connection answered at once (session/prompt apart). */
  maxRequestsInFlight: number;
  maxBufferedBytes: number;
  maxOutputStallMs: number;
  maxMessageBytes: number;
  /** 0: never. */
  idleTimeoutMs: number;
  /** --dashboard: the page's files, served at /ui/; its WebSockets may carry their token as a subprotocol. */
  dashboard: UiFiles | null;
}

/** A WebSocket upgrade while the SDK opens its connection (synchronously, inside the upgrade handler). */
interface Upgrade {
  remote: string | undefined;
  /** Set once the connection exists: the WebSocket is paused through it. */
  gate: RequestGate | null;
  /** Set once the connection exists: the host's label for it. */
  label: string | null;
  /** Set once the connection exists: its peer, which writes attached clients' updates to the WebSocket directly. */
  peer: Peer | null;
  /** Set once ws has accepted it. */
  webSocket: WebSocket | null;
  /** The socket under it. */
  socket: Socket;
}

interface Door {
  caller: Caller;
  acp: AcpServer;
  http(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

export class RemoteListener {
  readonly #host: ListenerHost;
  readonly #stats: HostStatsMonitor;
  /** No tokens file: every caller is the operator, and only loopback Host headers are served. */
  readonly #tenantless: boolean;
  /** The host's paths and store URL, kept out of every error a client is answered. */
  readonly #redaction: ErrorRedaction;
  readonly #options: RemoteOptions;
  readonly #server: Server;
  readonly #webSockets: WebSocketServer;
  readonly #doors = new Map<string, Door>();
  readonly #peers = new Set<Peer>();
  readonly #gate: TokenGate;
  readonly #warnings: RepeatedWarnings;
  readonly #slots: SocketSlots;
  /** The upgrade being handed to the SDK now, if any. */
  #upgrading: Upgrade | null = null;
  /** Each upgrade's connection, until its WebSocket is accepted. */
  readonly #upgrades = new WeakMap<IncomingMessage, Upgrade>();
  #connectionsOpened = 0;
  /** By connection label: how to forget the SDK's id for it. */
  readonly #sdkNames = new Map<string, () => void>();
  #idleSweep: NodeJS.Timeout | null = null;

  private constructor(
    host: ListenerHost,
    stats: HostStatsMonitor,
    options: RemoteOptions,
    tokens: TokenEntry[] | null,
  ) {
    this.#host = host;
    this.#stats = stats;
    this.#options = options;
    this.#warnings = new RepeatedWarnings(host.logger);
    this.#gate = new TokenGate(options.tokensFile, tokens, host.logger, this.#warnings, host.roots);
    this.#tenantless = tokens === null;
    this.#redaction = new ErrorRedaction(hostSecrets(host.config, options.tokensFile), (original) =>
      host.logger.debug({ error: original }, "an answer's error named the host's paths: sent with them replaced"),
    );
    const timeouts = {
      headersTimeout: options.handshakeTimeoutMs,
      requestTimeout: options.handshakeTimeoutMs,
      // Node looks for sockets past those timeouts this often (its default, 30 s, would more than double them).
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(options.handshakeTimeoutMs / 4))),
    };
    this.#server = options.tls
      ? createHttpsServer({
          cert: options.tls.cert,
          key: options.tls.key,
          handshakeTimeout: options.handshakeTimeoutMs,
          ...timeouts,
        })
      : createHttpServer(timeouts);
    this.#slots = new SocketSlots(
      {
        maxSockets: options.maxConnections,
        maxPerAddress: options.maxConnectionsPerAddress,
        maxPerTenant: options.maxConnectionsPerTenant,
      },
      this.#warnings,
    );
    this.#slots.attach(this.#server);
    // One message per turn of the event loop: a connection that sends thousands at once does not hold the main
    // thread from the others (and ws stops reading its socket while messages wait).
    this.#webSockets = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxMessageBytes,
      allowSynchronousEvents: false,
      handleProtocols: chooseSubprotocol,
    });
    // The SDK adds the id of the connection it opened to a WebSocket's upgrade answer (a listener of its own, after
    // this one): read once they all have run.
    this.#webSockets.on("headers", (headers: string[], req: IncomingMessage) =>
      queueMicrotask(() => {
        const label = this.#upgrades.get(req)?.label;
        const line = headers.find((header) => header.toLowerCase().startsWith(`${CONNECTION_ID_HEADER}:`));
        if (label && line) this.#nameSdkConnection(line.slice(line.indexOf(":") + 1).trim(), label);
      }),
    );
    this.#server.on("request", (req, res) => this.#onRequest(req, res));
    this.#server.on("upgrade", (req, socket, head) => this.#onUpgrade(req, socket, head));
    this.#server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
      // A socket already gone (reset by the client) has nothing to answer.
      if (error.code === "ECONNRESET" || !socket.writable) return void socket.destroy();
      this.#slots.pace(socket, () => refuseClientError(error, socket));
    });
  }

  /** tokens: the tokens file as read at start (null without one). */
  static async start(
    host: ListenerHost,
    stats: HostStatsMonitor,
    options: RemoteOptions,
    tokens: TokenEntry[] | null,
  ): Promise<RemoteListener> {
    const listener = new RemoteListener(host, stats, options, tokens);
    await new Promise<void>((resolve, reject) => {
      listener.#server.once("error", (error) =>
        reject(new ConfigError(`--listen ${options.host}:${options.port}: ${error.message}`)),
      );
      listener.#server.listen(options.port, options.host, () => {
        listener.#server.off("error", reject);
        resolve();
      });
    });
    if (options.idleTimeoutMs > 0) {
      listener.#idleSweep = setInterval(
        () => listener.#closeIdle(),
        Math.min(5000, Math.max(50, options.idleTimeoutMs / 4)),
      );
      listener.#idleSweep.unref();
    }
    return listener;
  }

  get url(): string {
    const address = this.#server.address() as AddressInfo;
    return `${this.#options.tls ? "https" : "http"}://${urlHost(address.address)}:${address.port}${ACP_PATH}`;
  }

  /** --dashboard: the page's address; null without it. */
  get dashboardUrl(): string | null {
    return this.#options.dashboard ? new URL("/ui/", this.url).href : null;
  }

  /**
   * A host without a tokens file (loopback only) serves only requests whose Host names a loopback address: a page of
   * a rebound name is refused before anything it sent is read. With tokens, the token is what authenticates.
   */
  #hostAllowed(req: IncomingMessage): boolean {
    return !this.#tenantless || hostHeaderIsLoopback(req.headers.host);
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
    this.#host.logger.info({ connectionsClosed: closed }, "tokens file reloaded");
  }

  /** Closes every connection and the listening socket. */
  async close(): Promise<void> {
    if (this.#idleSweep) clearInterval(this.#idleSweep);
    this.#slots.close();
    const servers = [...this.#doors.values()].map((door) => door.acp.close().catch(() => {}));
    this.#doors.clear();
    for (const peer of this.#peers) peer.close("host shutting down");
    await Promise.all(servers);
    this.#webSockets.close();
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    // The repeats counted since their last line are said before the host exits.
    this.#warnings.flush();
  }

  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    // A request sent after a refused one on the same connection, while it closes, is not served.
    if (isClosing(req.socket)) return;
    if (!this.#hostAllowed(req)) return this.#slots.pace(req.socket, () => refuseRequest(req, 421, {}, MISDIRECTED));
    const path = pathOf(req);
    if ((path === HEALTH_PATH || path === READY_PATH) && req.method === "GET") {
      const { httpStatus, body } = path === HEALTH_PATH ? health(this.#host) : readiness(this.#host);
      res.writeHead(httpStatus, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      return;
    }
    // The page is public (it holds no data): what it shows comes through /acp, with the token typed into it.
    if (this.#options.dashboard && isUiPath(path)) return serveUi(this.#options.dashboard, path, req, res);
    // Refusals before a request authenticates are answered at its address's pace (socket-slots.ts).
    if (path !== ACP_PATH) return this.#slots.pace(req.socket, () => refuseRequest(req, 404, {}, "Not Found"));
    const caller = this.#gate.authenticate(req);
    if (!caller) return this.#slots.pace(req.socket, () => refuseRequest(req, 401, { "WWW-Authenticate": "Bearer" }));
    const declared = declaredLength(req);
    if (declared > this.#options.maxMessageBytes) {
      this.#warnings.warn(
        req.socket.remoteAddress,
        "body too large",
        { declaredBytes: declared, maxMessageBytes: this.#options.maxMessageBytes },
        "request refused: body over --max-message-bytes",
      );
      return refuseRequest(req, 413, {}, `request body over --max-message-bytes (${this.#options.maxMessageBytes})`);
    }
    const opening = req.method === "POST" && req.headers[CONNECTION_ID_HEADER] === undefined;
    const refusal = opening ? this.#refuseNewConnection(req, caller) : null;
    if (refusal) return refuseRequest(req, 503, { "Retry-After": "1" }, refusal);
    // The socket is not evicted while it carries this request (an event stream: as long as it is open).
    const release = this.#slots.hold(req.socket, caller.tenant);
    if (!release) return refuseRequest(req, 503, { "Retry-After": "1" }, this.#tenantRefusal(req, caller));
    res.once("close", release);
    // A body without a declared length that grows past the bound is refused by the SDK (413): that ends it too.
    closeIfRefused(req, res);
    const served = mayOpenConnection(() => this.#door(caller).http(req, res));
    // The SDK names the connection it opened in its answer: its console lines may name it so.
    if (opening)
      res.once("finish", () => {
        const sdkId = res.getHeader(CONNECTION_ID_HEADER);
        if (typeof sdkId === "string" && served.label !== undefined) this.#nameSdkConnection(sdkId, served.label);
      });
  }

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (isClosing(socket)) return;
    if (!this.#hostAllowed(req)) return this.#slots.pace(req.socket, () => refuseUpgrade(socket, 421));
    if (pathOf(req) !== ACP_PATH) return this.#slots.pace(req.socket, () => refuseUpgrade(socket, 404));
    // A browser's page of another origin may not open one, token or not: a site the operator visits would otherwise
    // reach a host on loopback without a tokens file (cross-site WebSocket hijacking). Clients other than browsers
    // send no Origin.
    if (!sameOrigin(req)) return this.#slots.pace(req.socket, () => refuseUpgrade(socket, 403));
    const caller = this.#gate.authenticate(req, this.#options.dashboard !== null);
    if (!caller)
      return this.#slots.pace(req.socket, () => refuseUpgrade(socket, 401, { "WWW-Authenticate": "Bearer" }));
    if (this.#refuseNewConnection(req, caller)) return refuseUpgrade(socket, 503, { "Retry-After": "1" });
    // A WebSocket holds its slot as long as it is open.
    if (!this.#slots.hold(req.socket, caller.tenant)) {
      this.#tenantRefusal(req, caller);
      return refuseUpgrade(socket, 503, { "Retry-After": "1" });
    }
    const upgrade: Upgrade = {
      remote: req.socket.remoteAddress,
      gate: null,
      label: null,
      peer: null,
      webSocket: null,
      socket: req.socket,
    };
    this.#upgrades.set(req, upgrade);
    this.#upgrading = upgrade;
    try {
      mayOpenConnection(() => this.#door(caller).upgrade(req, socket, head));
    } finally {
      this.#upgrading = null;
    }
  }

  /** A WebSocket the SDK is about to serve: its connection's gate pauses it; its binary frames are dropped. */
  #onWebSocket(req: IncomingMessage, webSocket: WebSocket): void {
    const upgrade = this.#upgrades.get(req);
    upgrade?.gate?.attachInput(webSocket);
    if (upgrade) {
      upgrade.webSocket = webSocket;
      if (upgrade.peer) this.#sendDirectly(upgrade.peer, webSocket, req.socket);
    }
    dropBinaryFrames(webSocket, () =>
      this.#warnings.warn(upgrade?.remote, "binary frame", {}, "binary WebSocket frame dropped (ACP is text frames)"),
    );
  }

  /** What the host fans out to the peer's attachments goes to its WebSocket directly, under --max-output-stall-ms. */
  #sendDirectly(peer: Peer, webSocket: WebSocket, socket: Socket): void {
    const stallMs = this.#options.maxOutputStallMs;
    const stalled = () =>
      this.#host.logger.warn(
        { connection: peer.label, maxOutputStallMs: stallMs },
        "connection closed: its client read none of what the host wrote it for --max-output-stall-ms",
      );
    peer.sendDirectly(directSend(webSocket, socket, stallMs, stalled));
  }

  #refuseNewConnection(req: IncomingMessage, caller: Caller): string | null {
    if (!this.#host.admission.accepting) return "host is shutting down";
    if (this.#peers.size >= this.#options.maxConnections) {
      this.#warnings.warn(
        req.socket.remoteAddress,
        "connection refused",
        { maxConnections: this.#options.maxConnections },
        "connection refused: --max-connections reached",
      );
      return `too many connections (--max-connections ${this.#options.maxConnections})`;
    }
    if (caller.tenant === null) return null;
    let tenantConnections = 0;
    for (const peer of this.#peers) if (peer.tenant === caller.tenant) tenantConnections++;
    return tenantConnections >= this.#options.maxConnectionsPerTenant ? this.#tenantRefusal(req, caller) : null;
  }

  /** The caller's tenant holds its share of connections or sockets: logged, and the 503's reason. */
  #tenantRefusal(req: IncomingMessage, caller: Caller): string {
    const share = this.#options.maxConnectionsPerTenant;
    this.#warnings.warn(
      req.socket.remoteAddress,
      "tenant share",
      { tenant: caller.tenant, maxConnectionsPerTenant: share },
      "connection refused: --max-connections-per-tenant reached",
    );
    return `tenant ${caller.tenant} holds its share (--max-connections-per-tenant ${share})`;
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
      upgrade: createNodeWebSocketUpgradeHandler(
        acp,
        closingPromptly(this.#webSockets, (req, webSocket) => this.#onWebSocket(req, webSocket)),
      ),
    };
    this.#doors.set(key, door);
    return door;
  }

  #connect(caller: Caller, stream: Stream): AgentConnection {
    // The SDK opens a WebSocket's connection inside the upgrade handler; a Streamable HTTP one later, once the
    // initialize request's body has been read: its address is not known here, and its warnings go by connection.
    const upgrade = this.#upgrading;
    const peer = new Peer(`c${++this.#connectionsOpened}`, caller.tenant, caller.tokenHash, caller.operator);
    const remote = upgrade?.remote ?? `connection ${peer.label}`;
    const gate = new RequestGate(stream, {
      shown: (message) => this.#redaction.apply(message),
      maxInFlight: this.#options.maxRequestsInFlight,
      // Every message from the client counts as activity for the idle timeout.
      onMessage: () => peer.touch(),
      onStrayResponse: (id) =>
        this.#warnings.warn(
          remote,
          "stray response",
          { connection: peer.label, id: String(id).slice(0, 40) },
          "response to no request of the host's dropped",
        ),
    });
    if (upgrade) {
      upgrade.gate = gate;
      upgrade.label = peer.label;
      upgrade.peer = peer;
      if (upgrade.webSocket && upgrade.socket) this.#sendDirectly(peer, upgrade.webSocket, upgrade.socket);
    }
    const connection = connectPeer(this.#host, peer, this.#stats, gate.stream);
    this.#peers.add(peer);
    void connection.closed.then(() => {
      this.#peers.delete(peer);
      this.#sdkNames.get(peer.label)?.();
      this.#sdkNames.delete(peer.label);
    });
    this.#host.logger.info(
      { connection: peer.label, tenant: peer.tenant, operator: peer.operator, remote: upgrade?.remote },
      "connection opened",
    );
    return connection;
  }

  #nameSdkConnection(sdkId: string, label: string): void {
    // A connection already closed is not named: nothing would forget it.
    if (![...this.#peers].some((peer) => peer.label === label)) return;
    this.#sdkNames.set(label, nameSdkConnection(sdkId, label));
  }

  #closeIdle(): void {
    const now = performance.now();
    for (const peer of this.#peers) {
      if (now - peer.lastActive < this.#options.idleTimeoutMs) continue;
      if ([...this.#host.sessions.values()].some((session) => session.attachment === peer && session.busy)) continue;
      this.#host.logger.info(
        { connection: peer.label, idleTimeoutMs: this.#options.idleTimeoutMs },
        "idle connection closed",
      );
      peer.close("idle timeout");
    }
  }
}

/**
 * A WebSocket's send of one serialized message (the SDK sends each as a text frame of its own, as this does): the
 * message's frame, built once for every socket it goes to, written to the socket under ws, where ws writes its own
 * frames whole and in order (no compression is negotiated, so ws never holds one back); corked, the socket holds the
 * frames until uncorked, then writes them at once.
 */
function pathOf(req: IncomingMessage): string {
  const url = req.url ?? "/";
  const query = url.indexOf("?");
  return query < 0 ? url : url.slice(0, query);
}

/** The body length a request declares, or 0 (none, or a chunked body: its length is known only as it is read). */
function declaredLength(req: IncomingMessage): number {
  const header = req.headers["content-length"];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : 0;
}

/** What no client is told: the host's state dir, tokens file and runtime dir, and its store's URL however spelt. */
function hostSecrets(
  config: Pick<ListenerHost["config"], "stateDir" | "store" | "runtimeDir">,
  tokensFile: string | null,
): Secret[] {
  const secrets: Secret[] = [{ text: config.stateDir, shownAs: "<state dir>" }];
  if (tokensFile !== null) secrets.push({ text: tokensFile, shownAs: "<tokens file>" });
  if (config.runtimeDir) secrets.push({ text: config.runtimeDir, shownAs: "<runtime dir>" });
  if (config.store !== undefined && isPostgresUrl(config.store)) {
    secrets.push({ text: config.store, shownAs: "<store>" });
    // As the store names itself (its password masked): the rest still says where it is and who connects.
    secrets.push({ text: redactedUrl(config.store), shownAs: "<store>" });
  }
  return secrets;
}
