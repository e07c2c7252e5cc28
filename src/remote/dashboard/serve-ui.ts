// GET /ui/…: the dashboard's files from memory, under a Content-Security-Policy that lets the page load only its own
// files and talk only to its own origin (no inline script or style, no eval, no frames), so text a model wrote that
// somehow became markup still could not run.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { UiFiles } from "./ui-files.js";

export const UI_PATH = "/ui/";

export const UI_HEADERS = {
  "Content-Security-Policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
  "Cross-Origin-Resource-Policy": "same-origin",
  // The page changes with the host's version: always asked again (cheap: it is in memory).
  "Cache-Control": "no-cache",
} as const;

/** Whether the path is the dashboard's (/ui or under /ui/). */
export function isUiPath(path: string): boolean {
  return path === "/ui" || path.startsWith(UI_PATH);
}

export function serveUi(files: UiFiles, path: string, req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { ...UI_HEADERS, Allow: "GET, HEAD", "Content-Type": "text/plain" }).end("Method Not Allowed");
    return;
  }
  if (path === "/ui") {
    res.writeHead(308, { ...UI_HEADERS, Location: UI_PATH }).end();
    return;
  }
  const name = path === UI_PATH ? "index.html" : path.slice(UI_PATH.length);
  const file = files.get(name);
  if (!file) {
    res.writeHead(404, { ...UI_HEADERS, "Content-Type": "text/plain" }).end("Not Found");
    return;
  }
  const gzip = /\bgzip\b/.test(req.headers["accept-encoding"] ?? "");
  const body = gzip ? file.gzip : file.body;
  res.writeHead(200, {
    ...UI_HEADERS,
    "Content-Type": file.contentType,
    "Content-Length": body.length,
    Vary: "Accept-Encoding",
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  });
  res.end(req.method === "HEAD" ? undefined : body);
}
