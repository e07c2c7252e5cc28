// Every JSON-RPC error the host answers with, one catalogue for both sides of the thread boundary: a stable reason
// (in the error's data.reason) and the code it always comes with. A client branches on the reason; the message is for
// people and may change. The client's mistakes are -32602 or -32600; the host's and its workers' faults are -32603
// (a worker's fault is never blamed on the client); -32002 is ACP's resource-not-found. docs/errors.md says when each
// is answered, and a test holds it to this list.

export const ERROR_CODES = {
  invalidRequest: -32600,
  invalidParams: -32602,
  internal: -32603,
  notFound: -32002,
} as const;

export const REASONS = {
  /** A parameter is wrong (data.field names it). */
  INVALID_PARAMS: ERROR_CODES.invalidParams,
  /** A cwd or directory outside the caller's tenant's workspace roots (symlinks resolved). */
  OUTSIDE_WORKSPACE_ROOTS: ERROR_CODES.invalidParams,
  /** No session by that id open here for this caller. */
  UNKNOWN_SESSION: ERROR_CODES.invalidParams,
  /** The session's model refuses the prompt as it is (too long for its context window). */
  PROMPT_REJECTED: ERROR_CODES.invalidParams,
  /** No stored session by that id (or it was deleted). */
  SESSION_NOT_FOUND: ERROR_CODES.notFound,
  /** One prompt in flight per session: this one came while another is. */
  PROMPT_IN_FLIGHT: ERROR_CODES.invalidRequest,
  SESSION_CLOSED: ERROR_CODES.invalidRequest,
  /** The session is being loaded (its history replayed) or opened by another request. */
  SESSION_BUSY: ERROR_CODES.invalidRequest,
  /** The session is attached to another connection, or to none (resume or load it first). */
  NOT_ATTACHED: ERROR_CODES.invalidRequest,
  /** The connection is attached to the session as an observer: it may read, never change anything. */
  OBSERVER_ONLY: ERROR_CODES.invalidRequest,
  /** --max-attachments reached: the session's, or the connection's (data.limit, data.of). */
  TOO_MANY_ATTACHMENTS: ERROR_CODES.invalidRequest,
  /** An observer fell further behind than its queue holds: it was detached (re-attach after its last event id). */
  OBSERVER_TOO_SLOW: ERROR_CODES.invalidRequest,
  /** An attach's cursor names an event the session's log does not hold: replay from the start. */
  CURSOR_GAP: ERROR_CODES.invalidParams,
  /** A client is attached as the session's controller at the host of the fleet that serves it (data.hostId). */
  OWNED_ELSEWHERE: ERROR_CODES.notFound,
  /** Another host of the fleet holds the session and refuses to give it up now. */
  HELD_ELSEWHERE: ERROR_CODES.invalidRequest,
  /** A method of the host's operator, on a connection whose token is not marked operator. */
  OPERATOR_ONLY: ERROR_CODES.invalidRequest,
  /** The session's worker died, answered nonsense, or could not start or open the session. */
  WORKER_FAILED: ERROR_CODES.internal,
  /** The model (or the gateway to it) failed the turn after its retries. */
  MODEL_FAILED: ERROR_CODES.internal,
  /** The model's provider had no room for the turn's request within --model-queue-timeout-ms. */
  PROVIDER_BUSY: ERROR_CODES.internal,
  /** The agent loop failed the turn for a reason of its own. */
  TURN_FAILED: ERROR_CODES.internal,
  /** The session's log could not be written: the worker ends, the next prompt restores the session from its log. */
  LOG_WRITE_FAILED: ERROR_CODES.internal,
  /** A stored log or header cannot be used (damaged, from a newer host). */
  LOG_UNUSABLE: ERROR_CODES.internal,
  /** The session store failed (the state dir, PostgreSQL). */
  STORE_FAILED: ERROR_CODES.internal,
  /** The session is open in another host process on the same state dir (its lock). */
  LOCKED_ELSEWHERE: ERROR_CODES.internal,
  /** The host holding the session in the fleet answers neither a takeover nor its lease. */
  OWNER_UNREACHABLE: ERROR_CODES.internal,
  /** This host no longer serves the session (another host took it over, or it was deleted there). */
  SESSION_MOVED: ERROR_CODES.internal,
  /** --max-sessions reached. */
  AT_CAPACITY: ERROR_CODES.internal,
  /** --max-rss-mb reached, and no idle session is left to hibernate. */
  MEMORY_LIMIT: ERROR_CODES.internal,
  SHUTTING_DOWN: ERROR_CODES.internal,
} as const;

export type ErrorReason = keyof typeof REASONS;

export const ERROR_REASONS = Object.keys(REASONS) as ErrorReason[];

export function codeOf(reason: ErrorReason): number {
  return REASONS[reason];
}

/** The message of PROMPT_IN_FLIGHT, from the host's check and from the worker's alike. */
export const PROMPT_IN_FLIGHT_MESSAGE = "a prompt is already in flight for this session";
