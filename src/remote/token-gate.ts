// Who a request is: the bearer token checked against the tokens file (re-read on SIGHUP). Without a tokens file
// every caller is tenantless. The token is an Authorization header's; with the dashboard on, a WebSocket upgrade (of
// the listener's own origin: listener.ts refuses others) may carry it in Sec-WebSocket-Protocol instead
// (ws-bearer-token.ts), and nowhere else.
import type { IncomingMessage } from "node:http";
import type { Logger } from "../logger.js";
import type { RepeatedWarnings } from "./repeated-warnings.js";
import { readTokensFile } from "./token-file.js";
import { bearerToken, matchToken, type TokenEntry } from "./tokens.js";
import { subprotocolToken } from "./ws-bearer-token.js";
import type { WorkspaceRoots } from "../host/roots/workspace-roots.js";

/** Who a request authenticated as: the tenant and the hash of its token (both null without a tokens file). */
export interface Caller {
  tenant: string | null;
  tokenHash: string | null;
  /** The host's operator: a token marked `operator`, or any caller of a host without a tokens file. */
  operator: boolean;
}

export class TokenGate {
  readonly #path: string | null;
  readonly #logger: Logger;
  readonly #warnings: RepeatedWarnings;
  readonly #roots: Pick<WorkspaceRoots, "reload"> | null;
  #tokens: TokenEntry[] | null;

  /** tokens: the file as read at start (null: no tokens file); roots: its tenants' roots, reloaded with it. */
  constructor(
    path: string | null,
    tokens: TokenEntry[] | null,
    logger: Logger,
    warnings: RepeatedWarnings,
    roots: Pick<WorkspaceRoots, "reload"> | null = null,
  ) {
    this.#path = path;
    this.#roots = roots;
    this.#tokens = tokens;
    this.#logger = logger;
    this.#warnings = warnings;
  }

  /**
   * The caller, or null (then 401 with no detail; the log says why, never the token). subprotocol: a WebSocket
   * upgrade may carry its token in Sec-WebSocket-Protocol (the dashboard is on).
   */
  authenticate(req: IncomingMessage, subprotocol = false): Caller | null {
    if (this.#tokens === null) return { tenant: null, tokenHash: null, operator: true };
    const header = bearerToken(req.headers.authorization);
    const token = header ?? (subprotocol ? subprotocolToken(req) : null);
    const entry = token === null ? null : matchToken(this.#tokens, token);
    if (entry) return { tenant: entry.tenant, tokenHash: entry.hash, operator: entry.operator };
    const reason = token === null ? "no bearer token" : "unknown token";
    this.#warnings.warn(
      req.socket.remoteAddress,
      `unauthorized: ${reason}`,
      { method: req.method, reason },
      "unauthorized request refused",
    );
    return null;
  }

  /**
   * Re-reads the file; resolves to whether a caller is still valid, or null when the file could not be read (the
   * previous tokens stay in force). A token moved to another tenant, or whose `operator` mark changed, is no longer
   * valid for what it opened as.
   */
  async reload(): Promise<((caller: Caller) => boolean) | null> {
    if (this.#path === null) return null;
    let tokens: TokenEntry[];
    try {
      tokens = await readTokensFile(this.#path);
      // A file whose roots cannot be used (a tenant left open, a root gone) is refused whole, as one that does not parse.
      await this.#roots?.reload(tokens);
    } catch (error) {
      this.#logger.error(
        { err: (error as Error).message },
        "tokens file not reloaded: the previous tokens stay in force",
      );
      return null;
    }
    this.#tokens = tokens;
    const kept = new Set(
      tokens.map((entry) => callerKey({ tenant: entry.tenant, tokenHash: entry.hash, operator: entry.operator })),
    );
    return (caller) => caller.tokenHash === null || kept.has(callerKey(caller));
  }
}

/** One key per (tenant, token, operator mark): "" for the tenantless caller. */
export function callerKey(caller: Caller): string {
  return caller.tokenHash === null ? "" : `${caller.tenant} ${caller.tokenHash}${caller.operator ? " operator" : ""}`;
}
