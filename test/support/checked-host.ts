// Test support: the check of every message a host sends against the ACP SDK's own zod schema (its unstable v1 schema,
// which carries fork, status, titles, archive, systemPrompt, subagent and compaction updates): each notification and
// request the host sends, each answer to a request by the method it answers. A message is valid when it parses and
// nothing of it was dropped or replaced on the way (the SDK's schemas salvage what does not fit: valid means no salvage
// was needed). Violations are collected; the setup file schema-violations.ts fails the test in which one arrived.
// startHost (support/host.ts) checks its host's stdio so by default; connectChecked here is a WebSocket client so.
import { WebSocket } from "ws";
import { type AnyMessage, type Stream } from "@agentclientprotocol/sdk/unstable";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { z, type ZodType } from "zod";
import * as acp from "../../node_modules/@agentclientprotocol/sdk/dist/v1/unstable/schema/zod.gen.js";
import { HostClient, type ConnectOptions, type PermissionPolicy, type Understands } from "../../src/client/index.js";
import * as attach from "../../src/protocol/attach.js";

/**
 * The unstable extensions the host advertises and serves beside the SDK's schema (docs/protocol.md): checked with their
 * own schemas, in src/protocol/attach.ts. The capability itself is taken out of initialize's answer before the SDK's
 * schema checks the rest.
 */
function withoutUnstable(method: string, result: unknown): unknown {
  if (method !== "initialize") return result;
  const copy = JSON.parse(JSON.stringify(result)) as {
    agentCapabilities?: { sessionCapabilities?: Record<string, unknown> };
  };
  const capabilities = copy.agentCapabilities?.sessionCapabilities;
  if (capabilities && JSON.stringify(capabilities.attach) === "{}") delete capabilities.attach;
  return copy;
}

const RESPONSES: Record<string, ZodType> = {
  initialize: acp.zInitializeResponse,
  [attach.ATTACH_METHOD]: attach.AttachResponse.strict(),
  [attach.DETACH_METHOD]: z.object({}).strict(),
  authenticate: acp.zAuthenticateResponse,
  "session/new": acp.zNewSessionResponse,
  "session/load": acp.zLoadSessionResponse,
  "session/resume": acp.zResumeSessionResponse,
  "session/fork": acp.zForkSessionResponse,
  "session/list": acp.zListSessionsResponse,
  "session/status": acp.zSessionStatusResponse,
  "session/set_title": acp.zSetSessionTitleResponse,
  "session/archive": acp.zArchiveSessionResponse,
  "session/unarchive": acp.zUnarchiveSessionResponse,
  "session/close": acp.zCloseSessionResponse,
  "session/delete": acp.zDeleteSessionResponse,
  "session/prompt": acp.zPromptResponse,
  "session/set_mode": acp.zSetSessionModeResponse,
  "session/set_config_option": acp.zSetSessionConfigOptionResponse,
};

const FROM_HOST: Record<string, ZodType> = {
  "session/update": acp.zSessionNotification,
  "session/request_permission": acp.zRequestPermissionRequest,
  // JSON-RPC's cancellation of a request in flight: the host withdraws a permission request whose turn ended.
  "$/cancel_request": acp.zCancelRequestNotification,
  [attach.TURN_ENDED_NOTIFICATION]: attach.TurnEndedNotification.strict(),
  [attach.DETACHED_NOTIFICATION]: attach.DetachedNotification,
};

/** The schema's own checks; then that every value sent survived parsing (none dropped, defaulted over or replaced). */
export function schemaViolation(schema: ZodType, value: unknown): string | null {
  const parsed = schema.safeParse(value);
  if (!parsed.success) return parsed.error.message;
  const lost = missing(JSON.parse(JSON.stringify(value)) as unknown, parsed.data, "");
  return lost === null ? null : `not kept by the schema: ${lost}`;
}

function missing(sent: unknown, kept: unknown, path: string): string | null {
  if (sent === null || typeof sent !== "object")
    return Object.is(sent, kept) ? null : `${path || "(value)"} = ${JSON.stringify(sent)}`;
  if (kept === null || typeof kept !== "object") return `${path || "(value)"}`;
  for (const [key, value] of Object.entries(sent)) {
    const lost = missing(value, (kept as Record<string, unknown>)[key], `${path}.${key}`);
    if (lost) return lost;
  }
  return null;
}

/** Every list of violations a checked stream fills, with how many of its violations were reported. */
const watched = new Map<string[], number>();

/** The violations that arrived on any checked stream since the last call (the setup file fails a test with them). */
export function unreportedViolations(): string[] {
  const found: string[] = [];
  for (const [violations, reported] of watched) {
    found.push(...violations.slice(reported));
    watched.set(violations, violations.length);
  }
  return found;
}

/** Forgets the lists so far (their test file is done). */
export function forgetViolations(): void {
  watched.clear();
}

/**
 * Wraps a client's stream: every message the host sends is checked; violations land in `violations`, and are
 * reported by {@link unreportedViolations} too.
 */
export function checkedStream(stream: Stream, violations: string[]): Stream {
  watched.set(violations, violations.length);
  const asked = new Map<string, string>();
  const key = (id: unknown) => `${typeof id}:${String(id)}`;
  const writer = stream.writable.getWriter();
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      if ("method" in message && "id" in message && message.id !== undefined && message.id !== null)
        asked.set(key(message.id), message.method);
      return writer.write(message);
    },
    close: () => writer.close(),
    abort: (reason: unknown) => writer.abort(reason),
  });
  const check = (message: AnyMessage) => {
    const record = message as Record<string, unknown>;
    if (typeof record.method === "string") {
      const method = record.method;
      if (method.startsWith("_")) return;
      const schema = FROM_HOST[method];
      const problem = schema ? schemaViolation(schema, record.params) : "a method the host never sends";
      if (problem) violations.push(`${method}: ${problem}: ${JSON.stringify(record.params).slice(0, 400)}`);
      return;
    }
    const method = asked.get(key(record.id));
    asked.delete(key(record.id));
    if (method === undefined || method.startsWith("_")) return;
    if ("error" in record) {
      const problem = schemaViolation(acp.zError, record.error);
      if (problem) violations.push(`${method} error: ${problem}`);
      return;
    }
    const schema = RESPONSES[method];
    const problem = schema
      ? schemaViolation(schema, withoutUnstable(method, record.result))
      : "an answer to a method this suite does not know";
    if (problem) violations.push(`${method} answer: ${problem}: ${JSON.stringify(record.result).slice(0, 400)}`);
  };
  const readable = stream.readable.pipeThrough(
    new TransformStream<AnyMessage, AnyMessage>({
      transform(message, controller) {
        check(message);
        controller.enqueue(message);
      },
    }),
  );
  return { readable, writable };
}

/**
 * HostClient.connect (HTTP or WebSocket, reconnecting where asked), every message each of its connections receives
 * checked; the setup file fails the test in which one broke the schema.
 */
export function connectHost(url: string, options: ConnectOptions = {}): Promise<HostClient> {
  const violations: string[] = [];
  return HostClient.connect(url, { ...options, tap: (stream) => checkedStream(stream, violations) });
}

/** A client of a host listening (--listen) over WebSocket, every message it receives checked. */
export async function connectChecked(
  wsUrl: string,
  violations: string[],
  options: CheckedClientOptions & { token?: string } = {},
): Promise<HostClient> {
  const headers: Record<string, string> = options.token ? { Authorization: `Bearer ${options.token}` } : {};
  const stream = createWebSocketStream(wsUrl, { headers, WebSocket });
  return HostClient.attach(checkedStream(stream, violations), {
    permission: options.permission ?? "deny",
    ...understands(options),
  });
}

export interface CheckedClientOptions extends Understands {
  permission?: PermissionPolicy;
}

function understands(options: Understands): Understands {
  return {
    ...(options.subagents !== undefined ? { subagents: options.subagents } : {}),
    ...(options.compaction !== undefined ? { compaction: options.compaction } : {}),
  };
}
