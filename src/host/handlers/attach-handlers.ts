// session/attach and session/detach (unstable): a second client watches a live session as an observer, or joins it as
// a controller, without taking it over. A stored session that no host has open is opened here for it (as
// session/resume would, with no owning connection and no MCP servers). Another tenant's attach is answered exactly as
// an unknown id's: both read the stored header and fail alike.
import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import type { RequestError } from "@agentclientprotocol/sdk/unstable";
import {
  ATTACH_METHOD,
  AttachRequest,
  DETACH_METHOD,
  DetachRequest,
  type AttachResponse,
  type AttachRole,
} from "../../protocol/attach.js";
import type { LogHeader } from "../../protocol/log/session-log.js";
import { hasReason, hostError } from "../../request-errors.js";
import type { Peer } from "../connection/peer.js";
import type { HandlerHost } from "./handler-host.js";
import { findVisible, visibleStoredHeader } from "./session-access.js";
import { openSession } from "../session/open-session.js";
import { closeIfStillDetached } from "../connection/detached-close.js";
import { lineageOf, type LiveSession } from "../session/session.js";

/**
 * An observer's attach to a stored session (its tenant checked) that another live host of the fleet serves: followed
 * here from the store (null: none does, the session is opened here).
 */
async function followElsewhere(host: HandlerHost, peer: Peer, params: AttachRequest): Promise<AttachResponse | null> {
  const { followed, store } = host;
  if (!followed || !store.feed || params.role !== "observer") return null;
  if ((await store.feed.holder(params.sessionId)) === null) return null;
  const answer = await followed.attach(peer, params.sessionId, params.replayFrom, host.config.maxAttachQueueBytes);
  host.logger.info(
    { sessionId: params.sessionId, connection: peer.label, attachmentId: answer.attachmentId },
    "client attached: it follows the session from the store (another host serves it)",
  );
  return { hostId: host.hostId, ...answer };
}

/**
 * Opens a stored session here for an attach. A controller's, when another host serves the session and a client is
 * attached there as its controller, is refused with OWNED_ELSEWHERE and that host's id.
 */
async function openStored(host: HandlerHost, peer: Peer, header: LogHeader, role: AttachRole): Promise<LiveSession> {
  host.admission.assertAccepting();
  const { sessionId } = header;
  const model = host.models.resolve(header.model.model);
  const session = await openSession(host, {
    kind: "resume",
    id: sessionId,
    settings: { cwd: header.cwd, mode: header.mode, model, mcpServers: [] },
    tenant: header.tenant ?? null,
    lineage: lineageOf(header),
    budget: header.budget,
  }).catch((error: unknown) => {
    if (role !== "controller" || !hasReason(error, "HELD_ELSEWHERE")) throw error;
    const { message, data } = error as RequestError;
    const hostId = (data as { host?: string }).host ?? null;
    throw hostError("OWNED_ELSEWHERE", message, { sessionId, hostId });
  });
  host.logger.info({ sessionId, connection: peer.label }, "session opened for an attach");
  return session;
}

/** --max-attachments: a session's attached clients, or a connection's attachments, are that many already. */
function tooManyAttachments(sessionId: string, of: "session" | "connection", limit: number): RequestError {
  const whose = of === "session" ? `session ${sessionId} has` : "this connection holds";
  return hostError("TOO_MANY_ATTACHMENTS", `${whose} ${limit} attachments already (--max-attachments)`, {
    sessionId,
    of,
    limit,
  });
}

export function withAttach(app: AgentApp, host: HandlerHost, peer: Peer): AgentApp {
  return app
    .onRequest(ATTACH_METHOD, AttachRequest, async ({ params }) => {
      const { sessionId, role } = params;
      const limit = host.config.maxAttachments;
      if (peer.attachments >= limit) throw tooManyAttachments(sessionId, "connection", limit);
      let session = findVisible(host.sessions, peer, sessionId);
      if (!session) {
        const header = await visibleStoredHeader(host.store, peer, sessionId);
        const followed = await followElsewhere(host, peer, params);
        if (followed) return followed;
        session = await openStored(host, peer, header, role);
      }
      if (session.attachedClients >= limit) throw tooManyAttachments(sessionId, "session", limit);
      const answer = await session.attachClient(peer, params.role, params.replayFrom, host.config.maxAttachQueueBytes);
      host.logger.info(
        { sessionId: session.id, connection: peer.label, role: params.role, attachmentId: answer.attachmentId },
        "client attached",
      );
      return { hostId: host.hostId, ...answer };
    })
    .onRequest(DETACH_METHOD, DetachRequest, async ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId);
      if (!session) {
        // Not open here: answered as attach would answer for that id; an observer following it from the store ends.
        await visibleStoredHeader(host.store, peer, params.sessionId);
        host.followed?.detach(peer, params.sessionId, params.attachmentId);
        return {};
      }
      if (session.detachClient(peer, params.attachmentId)) {
        host.logger.info({ sessionId: session.id, attachmentId: params.attachmentId }, "client detached");
        if (!session.attended) closeIfStillDetached(host, session);
      }
      return {};
    });
}
