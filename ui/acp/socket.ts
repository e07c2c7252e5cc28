// JSON-RPC 2.0 over the host's WebSocket at /acp: the page is a client like any other. The token rides as an offered
// subprotocol (src/protocol/ws-bearer.ts): a browser cannot set an Authorization header on a WebSocket.
import { ACP_SUBPROTOCOL, BEARER_SUBPROTOCOL_PREFIX } from "../../src/protocol/ws-bearer";

export class RpcError extends Error {
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The socket closed before it opened: the host refused the upgrade (a wrong token, most likely) or is unreachable. */
export class RefusedError extends Error {}

type Handler = (method: string, params: unknown) => void;
type RequestHandler = (method: string, params: unknown, id: number | string) => Promise<unknown>;

interface Message {
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

function base64url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export class AcpSocket {
  readonly #ws: WebSocket;
  #next = 1;
  readonly #pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  readonly #notifications = new Set<Handler>();
  #onRequest: RequestHandler = () => Promise.reject(new RpcError(-32601, "Method not found", null));
  readonly #closed = new Set<() => void>();

  private constructor(ws: WebSocket) {
    this.#ws = ws;
    ws.addEventListener("message", (event) => this.#receive(event.data));
    ws.addEventListener("close", () => {
      for (const pending of this.#pending.values()) pending.reject(new Error("connection closed"));
      this.#pending.clear();
      for (const closed of this.#closed) closed();
    });
  }

  static open(token: string): Promise<AcpSocket> {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}/acp`, [
      ACP_SUBPROTOCOL,
      BEARER_SUBPROTOCOL_PREFIX + base64url(token),
    ]);
    return new Promise((resolve, reject) => {
      ws.addEventListener("open", () => resolve(new AcpSocket(ws)), { once: true });
      ws.addEventListener("close", () => reject(new RefusedError("the host refused the connection")), { once: true });
    });
  }

  get open(): boolean {
    return this.#ws.readyState === WebSocket.OPEN;
  }

  request<T>(method: string, params: unknown): Promise<T> {
    const id = this.#next++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: (value) => resolve(value as T), reject });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.#send({ jsonrpc: "2.0", method, params });
  }

  onNotification(handler: Handler): () => void {
    this.#notifications.add(handler);
    return () => this.#notifications.delete(handler);
  }

  /** The host's requests to the page (session/request_permission). */
  onRequest(handler: RequestHandler): void {
    this.#onRequest = handler;
  }

  onClose(handler: () => void): void {
    this.#closed.add(handler);
  }

  close(): void {
    this.#ws.close();
  }

  #send(message: object): void {
    if (this.open) this.#ws.send(JSON.stringify(message));
  }

  #receive(data: unknown): void {
    if (typeof data !== "string") return;
    let message: Message;
    try {
      message = JSON.parse(data) as Message;
    } catch {
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      const id = message.id;
      this.#onRequest(message.method, message.params, id).then(
        (result) => this.#send({ jsonrpc: "2.0", id, result }),
        (error: unknown) => {
          const { code, message: text } = error instanceof RpcError ? error : { code: -32603, message: String(error) };
          this.#send({ jsonrpc: "2.0", id, error: { code, message: text } });
        },
      );
    } else if (message.method !== undefined) {
      for (const handler of this.#notifications) handler(message.method, message.params);
    } else if (typeof message.id === "number") {
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (!pending) return;
      if (message.error)
        pending.reject(new RpcError(message.error.code, message.error.message, message.error.data ?? null));
      else pending.resolve(message.result);
    }
  }
}
