// session/attach and session/detach (unstable): a second client watches a live session as an observer, or joins it as
// a controller, without taking it over. Another tenant's attach is answered exactly as an unknown id's.
import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import { ATTACH_METHOD, AttachRequest, DETACH_METHOD, DetachRequest } from "../../protocol/attach.js";
import { unknownSession } from "../../request-errors.js";
import type { Peer } from "../connection/peer.js";
import type { HandlerHost } from "./handler-host.js";
import { findVisible } from "./session-access.js";

export function withAttach(app: AgentApp, host: HandlerHost, peer: Peer): AgentApp {
  return app
    .onRequest(ATTACH_METHOD, AttachRequest, async ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId);
      if (!session) throw unknownSession(params.sessionId);
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
    .onRequest(DETACH_METHOD, DetachRequest, ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId);
      if (!session) throw unknownSession(params.sessionId);
      if (session.detachClient(peer, params.attachmentId))
        host.logger.info({ sessionId: session.id, attachmentId: params.attachmentId }, "client detached");
      return {};
    });
}
