// session/attach and session/detach (unstable): a second client watches a live session as an observer, or joins it as
// a controller, without taking it over. A stored session that no host has open is opened here for it (as
// session/resume would, with no owning connection and no MCP servers). Another tenant's attach is answered exactly as
// an unknown id's: both read the stored header and fail alike.
import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import { ATTACH_METHOD, AttachRequest, DETACH_METHOD, DetachRequest } from "../../protocol/attach.js";
import type { Peer } from "../connection/peer.js";
import type { HandlerHost } from "./handler-host.js";
import { findVisible } from "./session-access.js";
import { openSession } from "../session/open-session.js";
import { closeIfStillDetached } from "../connection/detached-close.js";
import { lineageOf, type LiveSession } from "../session/session.js";

async function openStored(host: HandlerHost, peer: Peer, sessionId: string): Promise<LiveSession> {
  host.admission.assertAccepting();
  const header = await host.store.readHeader(sessionId);
  if (!peer.sees(header.tenant ?? null)) throw host.store.unknownSession(sessionId);
  const model = host.models.get(header.model.model) ?? host.defaultModel;
  const session = await openSession(host, {
    kind: "resume",
    id: sessionId,
    settings: { cwd: header.cwd, mode: header.mode, model, mcpServers: [] },
    tenant: header.tenant ?? null,
    lineage: lineageOf(header),
  });
  host.logger.info({ sessionId, connection: peer.label }, "session opened for an attach");
  return session;
}

export function withAttach(app: AgentApp, host: HandlerHost, peer: Peer): AgentApp {
  return app
    .onRequest(ATTACH_METHOD, AttachRequest, async ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId) ?? (await openStored(host, peer, params.sessionId));
      const answer = await session.attachClient(
        peer,
        params.role,
        params.replayFrom,
        host.config.maxAttachQueueBytes,
      );
      host.logger.info(
        { sessionId: session.id, connection: peer.label, role: params.role, attachmentId: answer.attachmentId },
        "client attached",
      );
      return answer;
    })
    .onRequest(DETACH_METHOD, DetachRequest, async ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId);
      if (!session) {
        // Not open here: nothing is attached; answered as attach would answer for that id.
        const header = await host.store.readHeader(params.sessionId);
        if (!peer.sees(header.tenant ?? null)) throw host.store.unknownSession(params.sessionId);
        return {};
      }
      if (session.detachClient(peer, params.attachmentId)) {
        host.logger.info({ sessionId: session.id, attachmentId: params.attachmentId }, "client detached");
        if (!session.attended) closeIfStillDetached(host, session);
      }
      return {};
    });
}
