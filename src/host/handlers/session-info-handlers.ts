// What a client asks and says about a session without using it: session/status (open here, or saved), its title
// (session/set_title) and whether it is archived (session/archive, session/unarchive). A session another tenant owns is
// answered as one that does not exist (-32002), as an unknown one is.
import type { AgentApp } from "@agentclientprotocol/sdk/unstable";
import type { HandlerHost } from "./handler-host.js";
import type { Peer } from "../connection/peer.js";
import { invalidParams } from "../../request-errors.js";
import type { LiveSession } from "../session/session.js";
import { close } from "./durable-handlers.js";
import { assertNotObserver, findVisible, visibleStoredHeader } from "./session-access.js";

/** A title is stored on one line, at most this long. */
const MAX_TITLE_CHARS = 256;

export function withSessionInfo(app: AgentApp, host: HandlerHost, peer: Peer): AgentApp {
  return (
    app
      // No side effect at all: nothing is loaded, started, attached, locked or listed anew; the store is only read.
      .onRequest("session/status", async ({ params }) => {
        if (findVisible(host.sessions, peer, params.sessionId)) return { status: "open" };
        await visibleStoredHeader(host.store, peer, params.sessionId);
        return { status: "saved" };
      })
      .onRequest("session/set_title", async ({ params }) => {
        const title = params.title.replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_CHARS).trim();
        if (title.length === 0) throw invalidParams("title", "the title is empty");
        const live = await visibleOrStored(host, peer, params.sessionId);
        assertNotObserver(host.sessions, host.followed, peer, params.sessionId);
        await host.store.setTitle(params.sessionId, title);
        // Its client hears of it (session_info_update) once it is stored.
        await live?.setTitle(title);
        return { title };
      })
      // The session stops here as session/close would stop it (its children with it), and leaves the default list.
      .onRequest("session/archive", async ({ params }) => {
        const live = await visibleOrStored(host, peer, params.sessionId);
        assertNotObserver(host.sessions, host.followed, peer, params.sessionId);
        if (live) await close(host, peer, params.sessionId);
        await host.store.setArchived(params.sessionId, true);
        host.logger.info({ sessionId: params.sessionId }, "session archived");
        return {};
      })
      // Back in the default list; nothing is loaded.
      .onRequest("session/unarchive", async ({ params }) => {
        await visibleOrStored(host, peer, params.sessionId);
        await host.store.setArchived(params.sessionId, false);
        host.logger.info({ sessionId: params.sessionId }, "session unarchived");
        return {};
      })
  );
}

/** The session open here, if it is; else null once the store has it (for this peer's tenant): -32002 otherwise. */
async function visibleOrStored(host: HandlerHost, peer: Peer, sessionId: string): Promise<LiveSession | null> {
  const live = findVisible(host.sessions, peer, sessionId);
  if (live) return live;
  await visibleStoredHeader(host.store, peer, sessionId);
  return null;
}
