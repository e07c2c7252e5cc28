// --listen HOST:PORT (an IPv6 host in brackets), and whether a host is loopback-only.
import { isIP } from "node:net";
import { z } from "zod";

export const ListenAddress = z.string().transform((value, ctx) => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    ctx.addIssue({
      code: "custom",
      message: "must be HOST:PORT, e.g. 127.0.0.1:8765 or [::1]:8765 (port 0: any free port)",
    });
    return z.NEVER;
  }
  return { host: (match[1] ?? match[2])!, port };
});
export type ListenAddress = z.infer<typeof ListenAddress>;

export function isLoopback(host: string): boolean {
  if (host === "localhost") return true;
  if (isIP(host) === 4) return host.startsWith("127.");
  return host === "::1";
}

/**
 * Whether a request's Host header names a loopback address ("127.0.0.1:8765", "[::1]:8765", "localhost:8765"), or is
 * absent: what a host without a tokens file serves. A page at a name of the attacker's that resolves to 127.0.0.1
 * (DNS rebinding) sends that name as its Host, and its Origin matches it, so Origin alone does not tell it from the
 * host's own page. A browser always sends a Host; a health checker (HAProxy's) may send none.
 */
export function hostHeaderIsLoopback(header: string | undefined): boolean {
  if (header === undefined) return true;
  let hostname: string;
  try {
    hostname = new URL(`http://${header}`).hostname;
  } catch {
    return false;
  }
  return isLoopback(hostname.startsWith("[") ? hostname.slice(1, -1) : hostname);
}

/** The URL a client uses for an address the server is bound to. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
