// What the host writes to an attached client's WebSocket directly (an update serialized once for all its clients),
// bypassing the SDK's pipeline, and so its --max-output-stall-ms: a client that reads none of what waits in its
// socket's buffer for that long is disconnected here, whatever else it sends (a message of its own is no read).
import type { Socket } from "node:net";
import type { WebSocket } from "ws";
import type { DirectSend } from "../host/connection/peer.js";
import { textFrame } from "./ws-frame.js";

export function directSend(webSocket: WebSocket, socket: Socket, stallMs: number, onStalled: () => void): DirectSend {
  let watch: NodeJS.Timeout | null = null;
  /** What the kernel had taken when the watch was armed (bytesWritten counts what waits in the buffer too). */
  let mark = 0;
  const taken = () => socket.bytesWritten - socket.writableLength;
  const check = () => {
    watch = null;
    if (socket.destroyed || socket.writableLength === 0) return;
    if (taken() === mark) {
      onStalled();
      socket.destroy();
      return;
    }
    arm();
  };
  const arm = () => {
    mark = taken();
    watch = setTimeout(check, stallMs).unref();
  };
  socket.once("close", () => watch && clearTimeout(watch));
  return {
    send: (message, done) => {
      if (webSocket.readyState !== webSocket.OPEN) return false;
      socket.write((message.frame ??= textFrame(message.json)), () => done());
      // Something waits in the buffer: the client must take some of it within the stall limit.
      if (watch === null && socket.writableLength > 0) arm();
      return true;
    },
    cork: () => socket.cork(),
    uncork: () => socket.uncork(),
  };
}
