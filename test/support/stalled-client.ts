// Test support: an ACP client over WebSocket on a bare TCP socket, so a test can make it stop reading (pause the
// socket) the way a stuck or malicious client would: what the server sends then stays in the kernel's buffers.
import { randomBytes } from "node:crypto";
import { connect, type Socket } from "node:net";

export interface StalledClient {
  socket: Socket;
  /** Sends a request and resolves with its response's result (while still reading). */
  call(id: number, method: string, params: unknown): Promise<unknown>;
  /** Resolves with the response to a request sent with send(), once it has been read: its result or error. */
  response(id: number): Promise<{ result?: unknown; error?: unknown }>;
  /** Sends without waiting for anything. */
  send(message: unknown): void;
  /** Sends session/prompt (request id) with one text block, without waiting: its answer is response(id). */
  sendPrompt(id: number, sessionId: string, text: string): void;
  /** Pauses the socket: what the server sends stays in the kernel's buffers. */
  stopReading(): void;
  /** Reads again, from where it stopped: a closed connection then shows as closed. */
  resumeReading(): void;
  /** Characters of agent_message_chunk text read so far. */
  agentText(): number;
  /** Responses read so far (to any request). */
  responsesRead(): number;
  /** Resolves when the connection has closed (seen only while reading). */
  closed: Promise<void>;
  /** The params of every notification of that method read so far. */
  notifications(method: string): unknown[];
  /** Every request of that method the server sent it so far (this client answers none of them). */
  requests(method: string): Array<{ id: number | string; params: unknown }>;
}

/** Opens a WebSocket to ws://host:port/path. */
export async function openStalledClient(url: string, headers: Record<string, string> = {}): Promise<StalledClient> {
  const { hostname, port, pathname } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  const key = randomBytes(16).toString("base64");
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  socket.write(
    `GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
  );

  let buffer = Buffer.alloc(0);
  let upgraded = false;
  let agentText = 0;
  let responsesRead = 0;
  const notified: { method: string; params: unknown }[] = [];
  const requested: { id: number | string; method: string; params: unknown }[] = [];
  const waiting = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();
  const answered = new Map<number, { result?: unknown; error?: unknown }>();
  let upgradedNow: () => void = () => {};
  const upgrade = new Promise<void>((resolve) => (upgradedNow = resolve));
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    if (!upgraded) {
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      if (!buffer.subarray(0, 12).toString("latin1").startsWith("HTTP/1.1 101"))
        throw new Error(`upgrade refused: ${buffer.toString("latin1", 0, end)}`);
      upgraded = true;
      buffer = buffer.subarray(end + 4);
      upgradedNow();
    }
    for (;;) {
      const next = readFrame(buffer);
      if (!next) return;
      buffer = buffer.subarray(next.size);
      if (next.opcode !== 1) continue;
      const message = JSON.parse(next.text) as {
        id?: number | string;
        method?: string;
        result?: unknown;
        error?: unknown;
        params?: { update?: { sessionUpdate?: string; content?: { text?: string } } };
      };
      if (message.method !== undefined && message.id === undefined)
        notified.push({ method: message.method, params: message.params });
      if (message.method !== undefined && message.id !== undefined)
        requested.push({ id: message.id, method: message.method, params: message.params });
      const update = message.params?.update;
      if (update?.sessionUpdate === "agent_message_chunk") agentText += update.content?.text?.length ?? 0;
      if (typeof message.id !== "number" || !("result" in message || "error" in message)) continue;
      responsesRead++;
      const resolve = waiting.get(message.id);
      if (resolve) resolve(message);
      else answered.set(message.id, message);
    }
  });
  await upgrade;
  const send = (message: unknown) => void socket.write(frame(JSON.stringify(message)));
  const response = (id: number) =>
    new Promise<{ result?: unknown; error?: unknown }>((resolve) => {
      const done = answered.get(id);
      if (done) resolve(done);
      else waiting.set(id, resolve);
    });
  return {
    socket,
    closed,
    send,
    sendPrompt: (id, sessionId, text) =>
      send({ jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text }] } }),
    response,
    call: async (id, method, params) => {
      const answer = response(id);
      send({ jsonrpc: "2.0", id, method, params });
      return (await answer).result;
    },
    stopReading: () => void socket.pause(),
    resumeReading: () => void socket.resume(),
    agentText: () => agentText,
    responsesRead: () => responsesRead,
    notifications: (method) => notified.filter((n) => n.method === method).map((n) => n.params),
    requests: (method) => requested.filter((r) => r.method === method).map(({ id, params }) => ({ id, params })),
  };
}

/** One unmasked server frame from the start of the buffer, or null when it has not all arrived. */
function readFrame(buffer: Buffer): { opcode: number; text: string; size: number } | null {
  if (buffer.length < 2) return null;
  const opcode = buffer[0]! & 0x0f;
  let length = buffer[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + length) return null;
  return { opcode, text: buffer.toString("utf8", offset, offset + length), size: offset + length };
}

/** One masked text frame (RFC 6455 §5.2): clients must mask what they send. */
export function frame(text: string): Buffer {
  const payload = Buffer.from(text, "utf8");
  const length = payload.length;
  let header: Buffer;
  if (length < 126) header = Buffer.from([0x81, 0x80 | length]);
  else if (length < 65536) {
    header = Buffer.from([0x81, 0x80 | 126, 0, 0]);
    header.writeUInt16BE(length, 2);
  } else {
    header = Buffer.from([0x81, 0x80 | 127, 0, 0, 0, 0, 0, 0, 0, 0]);
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = payload[i]! ^ mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}
