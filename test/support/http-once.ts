// One HTTP request on a socket of its own (no keep-alive agent): its status and headers.
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
