// The ACP calls the page makes: ACP's own methods typed by the SDK, the host's extension methods by the names and
// schemas the host answers with (src/protocol).
import type { ListSessionsResponse, PromptResponse, SessionInfo } from "@agentclientprotocol/sdk/unstable";
import {
  ATTACH_METHOD,
  AttachResponse,
  DETACH_METHOD,
  type AttachRole,
  type ReplayFrom,
} from "../../src/protocol/attach";
import { HOST_STATUS_METHOD, HostStatus, type HostStatusRequest } from "../../src/protocol/host-status";
import type { HostConnection } from "./host-connection";

export type { AttachResponse, AttachRole, HostStatus, SessionInfo };

/** tenant: only that tenant's sessions (the host honours it for a token that sees every tenant's); null: all. */
export function listSessions(
  connection: HostConnection,
  cursor: string | null,
  tenant: string | null,
): Promise<ListSessionsResponse> {
  return connection.agent.request("session/list", {
    ...(cursor === null ? {} : { cursor }),
    ...(tenant === null ? {} : { _meta: { "acp-session-host": { tenant } } }),
  });
}

/**
 * The page needs no worker's own figures: the host asks no session's worker for them (workerFigures: false).
 * history: with the host's samples of itself, all of them (null) or those taken after a time (ms since the epoch).
 */
export async function hostStatus(
  connection: HostConnection,
  pageSize: number,
  history?: { after: number | null },
): Promise<HostStatus> {
  const request: HostStatusRequest = {
    pageSize,
    workerFigures: false,
    ...(history ? { history: true, ...(history.after === null ? {} : { historyAfter: history.after }) } : {}),
  };
  return HostStatus.parse(await connection.agent.request(HOST_STATUS_METHOD, request));
}

export async function attach(
  connection: HostConnection,
  sessionId: string,
  role: AttachRole,
  afterEventId: string | null,
): Promise<AttachResponse> {
  const replayFrom: ReplayFrom =
    afterEventId === null ? { type: "start" } : { type: "after_event", eventId: afterEventId };
  return AttachResponse.parse(await connection.agent.request(ATTACH_METHOD, { sessionId, role, replayFrom }));
}

export async function detach(connection: HostConnection, sessionId: string, attachmentId: string): Promise<void> {
  await connection.agent.request(DETACH_METHOD, { sessionId, attachmentId });
}

export function prompt(connection: HostConnection, sessionId: string, text: string): Promise<PromptResponse> {
  return connection.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
}

export function cancel(connection: HostConnection, sessionId: string): void {
  void connection.agent.notify("session/cancel", { sessionId }).catch(() => {});
}

export async function setMode(connection: HostConnection, sessionId: string, modeId: string): Promise<void> {
  await connection.agent.request("session/set_mode", { sessionId, modeId });
}
