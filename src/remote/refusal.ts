// A request the listener refuses (401, 404, 413, 503) ends its connection: the answer is written (with "Connection:
// close"), then the server half-closes (FIN) and reads and drops whatever the client still sends, for LINGER_MS at
// most, before it closes (RFC 9112 §9.6). Closing with unread bytes at once would make the kernel reset the
// connection, and a client still writing its request (a body sent in one go with its headers) would get the reset
// instead of the answer. The refused request's body is never waited for: a client that trickles a huge one keeps the
// connection no longer than that.
import { STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

const LINGER_MS = 2000;

/** Sockets being closed this way: a request that arrives on one meanwhile is not served. */
const closing = new WeakSet<Duplex>();

export function isClosing(socket: Duplex): boolean {
  return closing.has(socket);
}

/**
 * Answers and ends the connection. The answer is written on the socket itself: through the response, Node would
 * destroy the socket as soon as a "Connection: close" answer is out, the reset this avoids.
 */
export function refuseRequest(
  req: IncomingMessage,
  status: number,
  headers: Record<string, string> = {},
  body = "",
): void {
  // What arrives of the body is read and dropped.
  req.resume();
  refuse(req.socket, status, { "Content-Type": "text/plain", ...headers }, body);
}

/** A refused WebSocket upgrade: the socket is already the caller's. */
export function refuseUpgrade(socket: Duplex, status: number, headers: Record<string, string> = {}): void {
  refuse(socket, status, headers, "");
}

/** A request handed to the SDK, which answers 413 itself to a body that grows past the bound as it is read. */
export function closeIfRefused(req: IncomingMessage, res: ServerResponse): void {
  res.once("finish", () => {
    if (res.statusCode !== 413) return;
    closing.add(req.socket);
    linger(req.socket);
  });
}

/** Node's answers to a request its parser refused, by the error's code (any other: 400). */
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * A request Node's HTTP parser refused (malformed, headers too large, not complete within --handshake-timeout-ms):
 * answered and closed as Node's own handler would, had the listener not taken the event to pace it.
 */
export function refuseClientError(error: NodeJS.ErrnoException, socket: Duplex & { bytesWritten?: number }): void {
  if (socket.destroyed) return;
  if (socket.writable && socket.bytesWritten === 0) {
    const status = CLIENT_ERROR_STATUS[error.code ?? ""] ?? 400;
    socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nConnection: close\r\n\r\n`);
  }
  socket.destroy();
}

function refuse(socket: Duplex, status: number, headers: Record<string, string>, body: string): void {
  if (closing.has(socket) || socket.destroyed) return;
  closing.add(socket);
  const lines = Object.entries({
    ...headers,
    "Content-Length": String(Buffer.byteLength(body)),
    Connection: "close",
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\n${lines.join("")}\r\n${body}`);
  linger(socket);
}

function linger(socket: Duplex): void {
  if (socket.destroyed || socket.writableEnded) return;
  socket.end();
  // Read and drop: bytes left unread at the close would reset the connection.
  socket.on("data", () => {});
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}
