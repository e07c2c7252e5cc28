// The WebSocket server handed to the SDK's upgrade handler, with one change: a socket the server closes is ended
// soon after. ws waits 30 s for the client's answer to its close frame, which a client that stopped reading never
// sends (the frame sits behind the output it did not read), so without this a stalled client would keep its socket.
// onAccepted sees each socket before the SDK does.
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { NodeWebSocketUpgradeServer } from "@agentclientprotocol/sdk/experimental/node";
import type { WebSocket, WebSocketServer } from "ws";

const CLOSE_GRACE_MS = 2000;

export function closingPromptly(
  server: WebSocketServer,
  onAccepted: (req: IncomingMessage, webSocket: WebSocket) => void,
): NodeWebSocketUpgradeServer {
  return {
    on: (event, listener) => void server.on(event, listener),
    off: (event, listener) => void server.off(event, listener),
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, callback: (webSocket: WebSocket) => void) {
      server.handleUpgrade(req, socket, head, (webSocket) => {
        const close = webSocket.close.bind(webSocket);
        webSocket.close = (code?: number, reason?: string | Buffer) => {
          close(code, reason);
          setTimeout(() => webSocket.terminate(), CLOSE_GRACE_MS).unref();
        };
        onAccepted(req, webSocket);
        callback(webSocket);
      });
    },
  };
}
