// Every JSON-RPC error the host answers with comes from here, each with its reason from the catalogue
// (src/protocol/errors.ts) in data.reason and the code that goes with it: the client's mistakes are -32602/-32600,
// the host's and its workers' faults are -32603. A worker's fault is never blamed on the client.
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { codeOf, PROMPT_IN_FLIGHT_MESSAGE, type ErrorReason } from "./protocol/errors.js";

/** An error of the catalogue: its reason's code, the reason in data.reason beside the details. */
export function hostError(reason: ErrorReason, message: string, data: Record<string, unknown> = {}): RequestError {
  return new RequestError(codeOf(reason), message, { reason, ...data });
}

/** Whether error is one of the catalogue's with this reason (data.reason), whatever its code. */
export function hasReason(error: unknown, reason: ErrorReason): boolean {
  if (!(error instanceof RequestError)) return false;
  const data = error.data as { reason?: unknown } | undefined;
  return data?.reason === reason;
}

/** A parameter the client sent is wrong. */
export function invalidParams(field: string, message: string, data: Record<string, unknown> = {}): RequestError {
  return hostError("INVALID_PARAMS", message, { field, ...data });
}

/** A directory a request names lies outside its tenant's workspace roots (by real path). */
export function outsideWorkspaceRoots(field: string, path: string, roots: readonly string[]): RequestError {
  return hostError(
    "OUTSIDE_WORKSPACE_ROOTS",
    `${field} ${path} is outside this tenant's workspace roots (${roots.join(", ")})`,
    { field, path, roots: [...roots] },
  );
}

/** No stored session by that id (-32002, ACP's resource-not-found). */
export function notFound(sessionId: string, message: string): RequestError {
  return hostError("SESSION_NOT_FOUND", message, { sessionId });
}

export function unknownSession(sessionId: string): RequestError {
  return hostError("UNKNOWN_SESSION", `unknown session: ${sessionId}`, { sessionId });
}

export function sessionClosed(): RequestError {
  return hostError("SESSION_CLOSED", "session is closed");
}

export function promptInFlight(): RequestError {
  return hostError("PROMPT_IN_FLIGHT", PROMPT_IN_FLIGHT_MESSAGE);
}

export function atMemoryLimit(rssBytes: number, limitBytes: number): RequestError {
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
  return hostError(
    "MEMORY_LIMIT",
    `host at memory limit: RSS ${mib(rssBytes)} MiB, limit ${mib(limitBytes)} MiB (--max-rss-mb), and no idle session left to hibernate`,
    { rssMiB: mib(rssBytes), limitMiB: mib(limitBytes) },
  );
}

/** A method of the host's operator, called on a connection whose token is not marked `operator`. */
export function operatorOnly(method: string): RequestError {
  return hostError(
    "OPERATOR_ONLY",
    `${method} is for the host's operator: this connection's token is not marked operator in the tokens file`,
    { method },
  );
}

export function shuttingDown(): RequestError {
  return hostError("SHUTTING_DOWN", "host is shutting down");
}

/** A session's worker died, answered nonsense, or failed: the host's fault, named with the session. */
export function workerFault(sessionId: string, message: string): RequestError {
  return hostError("WORKER_FAILED", message, { sessionId });
}

/**
 * A session's worker could not start (its bundle would not load, its start threw, its thread died before it opened the
 * session): only the prompt or load that waited for it fails, and the session's next prompt starts another.
 */
export function workerStartFailed(sessionId: string, cause: string): RequestError {
  return workerFault(sessionId, `session ${sessionId}: its worker failed to start: ${cause}`);
}

/** An error a worker reported with its reason (a refused prompt, a failed turn). */
export function fromWorker(reason: ErrorReason, message: string, data: Record<string, unknown> = {}): RequestError {
  return hostError(reason, message, data);
}

/** The session store failed (PostgreSQL unreachable, a statement refused): the host's fault, named with the store. */
export function storeFault(store: string, message: string, data: Record<string, unknown> = {}): RequestError {
  return hostError("STORE_FAILED", `session store ${store}: ${message}`, { store, ...data });
}

/** This host no longer holds the session (another host took it over, or it was deleted there): it drops it. */
export function sessionMoved(sessionId: string, why: string): RequestError {
  return hostError(
    "SESSION_MOVED",
    `session ${sessionId} moved: ${why}; this host no longer serves it (resume it again to continue)`,
    { sessionId },
  );
}
