// What went wrong with a model request, in words for the prompt's JSON-RPC error, and whether to try again.
import { APIConnectionError, APIConnectionTimeoutError, APIError } from "openai";
import { ModelIdle } from "./idle-watch.js";
import { StreamIncomplete } from "./openai-stream.js";

export interface Failure {
  retryable: boolean;
  /** e.g. "HTTP 401: Incorrect API key provided" or "connection failed: connect ECONNREFUSED 127.0.0.1:9". */
  message: string;
  status: number | null;
  headers: Headers | undefined;
}

/** Socket-level errors (undici and node) that mean the connection broke, not that the server said no. */
const CONNECTION_CODES = new Set([
  "ECONNRESET",
  "ECONNREFUSED",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

export function classify(error: unknown): Failure {
  if (error instanceof ModelIdle) return failure(true, error.message);
  if (error instanceof APIConnectionTimeoutError) return failure(true, "the request timed out");
  if (error instanceof APIConnectionError)
    return failure(true, `connection failed: ${causeText(error.cause ?? error)}`);
  if (error instanceof APIError) {
    if (typeof error.status !== "number")
      return failure(false, `the server reported an error mid-stream: ${serverMessage(error)}`);
    const retryable = error.status === 429 || error.status >= 500;
    return {
      retryable,
      message: `HTTP ${error.status}: ${serverMessage(error)}`,
      status: error.status,
      headers: error.headers,
    };
  }
  if (error instanceof StreamIncomplete) return failure(true, error.message);
  if (isConnectionLoss(error)) return failure(true, `connection lost mid-stream: ${causeText(error)}`);
  return failure(false, `unexpected error: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * The provider's "does not fit the context window" answer. OpenAI says code context_length_exceeded; DeepSeek, vLLM
 * and llama.cpp say "maximum context length is N tokens" (or "exceeds the context") with a generic code.
 */
export function isContextOverflow(failure: Failure): boolean {
  if (failure.status !== 400 && failure.status !== 413) return false;
  return /context_length_exceeded|maximum context length|context length|context window|exceeds? the (available )?context|prompt is too long/i.test(
    failure.message,
  );
}

function failure(retryable: boolean, message: string): Failure {
  return { retryable, message, status: null, headers: undefined };
}

/** The server's own words: OpenAI's {error:{message}}, Ollama's {error:"…"}, else the SDK's rendering. */
function serverMessage(error: APIError): string {
  const body: unknown = error.error;
  if (typeof body === "string" && body.length > 0) return body;
  if (body && typeof body === "object" && "message" in body && typeof body.message === "string") return body.message;
  return error.message.replace(/^\d{3} /, "");
}

function isConnectionLoss(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && CONNECTION_CODES.has(code)) return true;
    if (e.name === "TypeError" && e.message === "terminated") return true;
  }
  return false;
}

function causeText(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    const text = code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
    if (text && !parts.includes(text)) parts.push(text);
  }
  return parts.join(": ") || String(error);
}

/**
 * fetch for the openai client: an error body in another server's shape (vLLM's {message}, FastAPI's {detail}) is
 * rewritten into OpenAI's {error:{message}}, so the client's error carries the server's own words.
 */
export async function fetchNormalizingErrors(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (response.ok) return response;
  const text = await response.text();
  return new Response(normalizeErrorBody(text), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function normalizeErrorBody(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return text;
  }
  if (!body || typeof body !== "object" || "error" in body) return text;
  const record = body as Record<string, unknown>;
  const message =
    typeof record.message === "string" ? record.message : typeof record.detail === "string" ? record.detail : null;
  return message === null
    ? text
    : JSON.stringify({ error: { message, type: record.type ?? null, code: record.code ?? null } });
}
