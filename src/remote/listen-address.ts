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

/** The URL a client uses for an address the server is bound to. */
export function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}
