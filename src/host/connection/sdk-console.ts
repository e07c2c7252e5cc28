// The ACP SDK writes what goes wrong with a connection (a malformed notification, a response to no request, a reader
// that stalled) with console.error and console.warn: a raw line per message, at a client's will, on the stderr that
// carries the host's JSON, and it takes no logger. Its console lines go through the host's logger instead, kept from
// flooding it like the listener's warnings: the first of a kind from a connection as it comes, then a count every
// period, and what is still counted when the process exits. The connection is the one being served when the line is
// written (each connection is served inside an async context of its own, a remote one's from the request or upgrade
// that opened it); a line written outside them (a stalled reader's close comes from the output's side) names the SDK's
// own id for the connection, which the listener maps to the host's label.
import { AsyncLocalStorage } from "node:async_hooks";
import { format } from "node:util";
import type { Logger } from "../../logger.js";
import { RepeatedWarnings } from "../../remote/repeated-warnings.js";

/** label: the host's name for the connection (stdio, c1, …); unset while the request that opens one is read. */
const serving = new AsyncLocalStorage<{ label: string | undefined }>();

/** What one console line may carry into the log: the SDK logs only identifying metadata, but a line stays a line. */
const MAX_DETAIL_CHARS = 500;

/** The SDK names its own connections in some lines: `ACP connection <id> …`. */
const SDK_CONNECTION = /ACP connection (\S+?):?(?=\s|$)/;

const METHODS = ["error", "warn", "log", "info", "debug", "trace"] as const;

/** Runs fn, which opens a connection: the SDK's console lines while that connection is served are said to be its. */
export function servingConnection<T>(label: string, fn: () => T): T {
  const opening = serving.getStore();
  if (opening && opening.label === undefined) opening.label = label;
  return serving.run({ label }, fn);
}

/**
 * Runs fn, a remote request or upgrade the SDK may open a connection in: what it makes for it is that connection's.
 * Returns the label of the connection it opened, once it has (servingConnection sets it).
 */
export function mayOpenConnection(fn: () => void): { readonly label: string | undefined } {
  const opening = { label: undefined };
  serving.run(opening, fn);
  return opening;
}

/** The SDK's own ids of remote connections, and the host's labels for them. */
const sdkLabels = new Map<string, string>();

/**
 * A line that names the SDK's connection sdkId (one written where no connection is being served, as a stalled reader's
 * close) is said to be connection label's; returns how to forget the name (the connection closed).
 */
export function nameSdkConnection(sdkId: string, label: string): () => void {
  sdkLabels.set(sdkId, label);
  return () => {
    if (sdkLabels.get(sdkId) === label) sdkLabels.delete(sdkId);
  };
}

/** Sends every console line of this process to log; returns how to put the console back. */
export function routeConsole(log: Logger, periodMs?: number): () => void {
  const warnings = new RepeatedWarnings(log, periodMs, "connection");
  const original = new Map(METHODS.map((method) => [method, console[method]] as const));
  const write = (...args: unknown[]): void => {
    const first = typeof args[0] === "string" ? args[0] : "";
    const named = SDK_CONNECTION.exec(first)?.[1];
    const connection = serving.getStore()?.label ?? (named === undefined ? undefined : (sdkLabels.get(named) ?? named));
    const kind = kindOf(first);
    const detail = format(...args).slice(0, MAX_DETAIL_CHARS);
    warnings.warn(connection, kind, named ? { sdkConnection: named, detail } : { detail }, `ACP SDK: ${kind}`);
  };
  for (const method of METHODS) console[method] = write;
  const flush = () => warnings.flush();
  process.on("exit", flush);
  return () => {
    process.off("exit", flush);
    warnings.flush();
    for (const [method, fn] of original) console[method] = fn;
  };
}

/** The same for every repeat: the line's leading text, without the connection it names or what follows a colon. */
function kindOf(first: string): string {
  const text = first.replace(SDK_CONNECTION, "ACP connection").split(":")[0]!.trim();
  return text === "" ? "console output" : text.slice(0, 80);
}
