// The status a WebSocket upgrade to a URL with these headers is answered with (101: accepted), read from the raw
// handshake so that any header (Origin, Sec-WebSocket-Protocol) is sent as given.
import { request } from "node:http";

export function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url.replace(/^ws/, "http"), {
      headers: {
        Connection: "Upgrade",
        Upgrade: "websocket",
        "Sec-WebSocket-Version": "13",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ...headers,
      },
    });
    req.once("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end();
  });
}
