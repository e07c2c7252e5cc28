// The page's ACP connection to the host's /acp WebSocket, on the SDK's client side: the page is a client like any
// other. The token rides as an offered subprotocol (src/protocol/ws-bearer.ts): a browser cannot set an Authorization
// header on a WebSocket.
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import {
  client,
  RequestError,
  type ClientConnection,
  type ClientContext,
  type JsonRpcId,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk/unstable";
import {
  DETACHED_NOTIFICATION,
  DetachedNotification,
  TURN_ENDED_NOTIFICATION,
  TurnEndedNotification,
} from "../../src/protocol/attach";
import { ACP_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX } from "../../src/protocol/ws-bearer";
import { base64url } from "./base64url";

/** The connection ended before the host answered initialize: it refused the upgrade (a wrong token, most likely). */
export class RefusedError extends Error {}

/** What the host tells the page unasked: the updates of the sessions it is attached to, and its own notices. */
export type HostNotice =
  | { method: "session/update"; params: SessionNotification }
  | { method: typeof TURN_ENDED_NOTIFICATION; params: TurnEndedNotification }
  | { method: typeof DETACHED_NOTIFICATION; params: DetachedNotification };

/** Answers the host's session/request_permission; `withdrawn` aborts once the host no longer wants the answer. */
export type PermissionAnswerer = (
  request: RequestPermissionRequest,
  requestId: JsonRpcId,
  withdrawn: AbortSignal,
) => Promise<RequestPermissionResponse>;

export class HostConnection {
  /** The host's methods, the ACP ones typed by the SDK, the host's own (`_host/…`, session/attach) by name. */
  readonly agent: ClientContext;
  readonly #connection: ClientConnection;
  readonly #listeners: Set<(notice: HostNotice) => void>;
  readonly #answerer: { current: PermissionAnswerer | null };

  private constructor(
    connection: ClientConnection,
    listeners: Set<(notice: HostNotice) => void>,
    answerer: { current: PermissionAnswerer | null },
  ) {
    this.agent = connection.agent;
    this.#connection = connection;
    this.#listeners = listeners;
    this.#answerer = answerer;
  }

  /** An initialized connection; rejects with RefusedError when the host refused it or could not be reached. */
  static async open(token: string): Promise<HostConnection> {
    const listeners = new Set<(notice: HostNotice) => void>();
    const answerer: { current: PermissionAnswerer | null } = { current: null };
    const tell = (notice: HostNotice) => {
      for (const listener of listeners) listener(notice);
    };
    const app = client({ name: "acp-session-host dashboard" })
      .onNotification("session/update", ({ params }) => tell({ method: "session/update", params }))
      .onNotification(TURN_ENDED_NOTIFICATION, TurnEndedNotification, ({ params }) =>
        tell({ method: TURN_ENDED_NOTIFICATION, params }),
      )
      .onNotification(DETACHED_NOTIFICATION, DetachedNotification, ({ params }) =>
        tell({ method: DETACHED_NOTIFICATION, params }),
      )
      .onRequest("session/request_permission", ({ params, requestId, signal }) => {
        if (answerer.current === null) throw RequestError.methodNotFound("session/request_permission");
        return answerer.current(params, requestId, signal);
      });
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const stream = createWebSocketStream(`${scheme}//${location.host}/acp`, {
      protocols: [ACP_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX + base64url(token)],
    });
    const connection = app.connect(stream);
    try {
      await connection.agent.request("initialize", {
        protocolVersion: 1,
        // subagents: a child session is announced on its parent as it starts (subagent_update), so the live view
        // links it.
        clientCapabilities: { subagents: {} },
        clientInfo: { name: "acp-session-host dashboard", version: "1" },
      });
    } catch (error) {
      connection.close();
      // Only the host's answer is a RequestError: anything else is the socket failing before it served (the
      // browser tells a page nothing of a refused upgrade but that it closed).
      throw error instanceof RequestError ? error : new RefusedError("the host refused the connection");
    }
    return new HostConnection(connection, listeners, answerer);
  }

  get open(): boolean {
    return !this.#connection.signal.aborted;
  }

  onNotice(listener: (notice: HostNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  /** The host's permission questions go to this answerer from now on (the session view shown). */
  answerPermissions(answerer: PermissionAnswerer): void {
    this.#answerer.current = answerer;
  }

  onClose(handler: () => void): void {
    void this.#connection.closed.then(handler);
  }

  close(): void {
    this.#connection.close();
  }
}
