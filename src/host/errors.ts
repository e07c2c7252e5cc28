// Every JSON-RPC error the host answers with comes from here: the client's mistakes are -32602/-32600, the host's
// and its workers' faults are -32603. A worker's fault is never blamed on the client.
import { RequestError } from "@agentclientprotocol/sdk/unstable";

/** A parameter the client sent is wrong. */
export function invalidParams(field: string, message: string, data: Record<string, unknown> = {}): RequestError {
  return RequestError.invalidParams({ field, ...data }, message);
}

/** No stored session by that id (-32002, ACP's resource-not-found). */
export function notFound(sessionId: string, message: string): RequestError {
  return new RequestError(-32002, message, { sessionId });
}

/** The request is valid but not now (a prompt in flight, a session being loaded). */
export function invalidRequest(message: string, data?: Record<string, unknown>): RequestError {
  return RequestError.invalidRequest(data, message);
}

export function unknownSession(sessionId: string): RequestError {
  return RequestError.invalidParams({ sessionId }, `unknown session: ${sessionId}`);
}

export function sessionClosed(): RequestError {
  return RequestError.invalidRequest(undefined, "session is closed");
}

export function promptInFlight(): RequestError {
  return RequestError.invalidRequest(undefined, "a prompt is already in flight for this session");
}

/** The host's own fault (state dir, capacity, shutting down). */
export function internal(message: string, data?: Record<string, unknown>): RequestError {
  return RequestError.internalError(data, message);
}

export function atMemoryLimit(rssBytes: number, limitBytes: number): RequestError {
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  return RequestError.internalError(
    { rssMiB: mib(rssBytes), limitMiB: mib(limitBytes) },
    `host at memory limit: RSS ${mib(rssBytes)} MiB, limit ${mib(limitBytes)} MiB (--max-rss-mb), and no idle session left to hibernate`,
  );
}

/** A method of the host's operator, called on a connection whose token is not marked `operator`. */
export function operatorOnly(method: string): RequestError {
  return RequestError.invalidRequest(
    { method },
    `${method} is for the host's operator: this connection's token is not marked operator in the tokens file`,
  );
}

export function shuttingDown(): RequestError {
  return RequestError.internalError(undefined, "host is shutting down");
}

/** A session's worker died, answered nonsense, or failed: the host's fault, named with the session. */
export function workerFault(sessionId: string, message: string): RequestError {
  return RequestError.internalError({ sessionId }, message);
}

/** An error a worker reported with its own code (a refused prompt, a failed turn). */
export function fromWorker(code: number, message: string, data?: Record<string, unknown>): RequestError {
  return new RequestError(code, message, data);
}

/** The session store failed (PostgreSQL unreachable, a statement refused): the host's fault, named with the store. */
export function storeFault(store: string, message: string, data: Record<string, unknown> = {}): RequestError {
  return RequestError.internalError({ store, ...data }, `session store ${store}: ${message}`);
}

/** This host no longer holds the session (another host took it over, or it was deleted there): it drops it. */
export function sessionMoved(sessionId: string, why: string): RequestError {
  return RequestError.internalError({ sessionId }, `session ${sessionId} moved: ${why}; this host no longer serves it (resume it again to continue)`);
}
