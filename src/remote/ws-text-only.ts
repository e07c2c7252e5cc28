// ACP over WebSocket is text frames only. The SDK ignores a binary frame with a line on the console each time; here
// such frames are dropped before it sees them, with a warning rate-limited per address (a client can send any number).
import type { WebSocket } from "ws";

export function dropBinaryFrames(webSocket: WebSocket, onDropped: () => void): void {
  const emit = webSocket.emit.bind(webSocket);
  webSocket.emit = ((event: string | symbol, ...args: unknown[]): boolean => {
    // ws emits ("message", data, isBinary).
    if (event === "message" && args[1] === true) {
      onDropped();
      return true;
    }
    return emit(event, ...args);
  }) as WebSocket["emit"];
}
