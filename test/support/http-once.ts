// One HTTP request on a socket of its own (no keep-alive agent): its status and headers; and the ACP initialize
// request a Streamable HTTP client opens its connection with.
import { request } from "node:http";

export function httpOnce(
  url: string,
  method: string,
  headers: Record<string, string>,
  body = "",
): Promise<{ status: number; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method, headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) }, agent: false },
      (res) => {
        res.resume();
        res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

/** The body of an ACP initialize request (protocol version 1, no capabilities). */
export const ACP_INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
});

/** Headers of a Streamable HTTP request with this bearer token. */
export function acpHeaders(token: string): Record<string, string> {
  return {
    Authorization: `Bearer ${token}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
}
