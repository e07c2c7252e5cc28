// The ACP calls the page makes, typed with the SDK's and the host's own schema types (type imports only: nothing of
// either is bundled).
import type {
  InitializeResponse,
  ListSessionsResponse,
  PromptResponse,
  SessionInfo,
} from "@agentclientprotocol/sdk/unstable";
import type { AttachResponse, AttachRole } from "../../src/protocol/attach";
import type { HostStatus } from "../../src/protocol/host-status";
import type { AcpSocket } from "./socket";

export type { AttachResponse, AttachRole, HostStatus, SessionInfo };

export function initialize(socket: AcpSocket): Promise<InitializeResponse> {
  return socket.request("initialize", {
    protocolVersion: 1,
    // subagents: a child session is announced on its parent as it starts (subagent_update), so the live view links it.
    clientCapabilities: { subagents: {} },
    clientInfo: { name: "acp-session-host dashboard", version: "1" },
  });
}

/** tenant: only that tenant's sessions (the host honours it for a token that sees every tenant's); null: all. */
export function listSessions(
  socket: AcpSocket,
  cursor: string | null,
  tenant: string | null,
): Promise<ListSessionsResponse> {
  return socket.request("session/list", {
    ...(cursor === null ? {} : { cursor }),
    ...(tenant === null ? {} : { _meta: { "acp-session-host": { tenant } } }),
  });
}

/** The page needs no worker's own figures: the host asks no session's worker for them (workerFigures: false). */
export function hostStatus(socket: AcpSocket, pageSize: number): Promise<HostStatus> {
  return socket.request("_host/status", { pageSize, workerFigures: false });
}

export function attach(
  socket: AcpSocket,
  sessionId: string,
  role: AttachRole,
  afterEventId: string | null,
): Promise<AttachResponse> {
  return socket.request("session/attach", {
    sessionId,
    role,
    replayFrom: afterEventId === null ? { type: "start" } : { type: "after_event", eventId: afterEventId },
  });
}

export function detach(socket: AcpSocket, sessionId: string, attachmentId: string): Promise<unknown> {
  return socket.request("session/detach", { sessionId, attachmentId });
}

export function prompt(socket: AcpSocket, sessionId: string, text: string): Promise<PromptResponse> {
  return socket.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

export function cancel(socket: AcpSocket, sessionId: string): void {
  socket.notify("session/cancel", { sessionId });
}

export function setMode(socket: AcpSocket, sessionId: string, modeId: string): Promise<unknown> {
  return socket.request("session/set_mode", { sessionId, modeId });
}
