// The ACP methods of durable sessions: session/load, resume, list, close and delete. A session is its log in
// the store; these open it in this host (restored in a fresh worker), list the stored ones, and end them.
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import type { AgentApp, LoadSessionResponse } from "@agentclientprotocol/sdk/unstable";
import { hostError, invalidParams } from "../../request-errors.js";
import { assertAbsolute, assertNoExtras } from "./request-checks.js";
import { mcpServersFrom } from "./mcp-servers-param.js";
import { OpenSessionParams } from "./session-params.js";
import type { HandlerHost } from "./handler-host.js";
import type { Peer } from "../connection/peer.js";
import { assertAttachable, assertNotObserver, findVisible, visibleStoredHeader } from "./session-access.js";
import { openSession } from "../session/open-session.js";
import { lineageOf, type LiveSession } from "../session/session.js";
import { systemPromptFrom } from "./system-prompt-param.js";
import { listedTenantFor } from "./list-tenant-param.js";
import type { ArchiveFilter } from "../../store/session-store.js";
import { withLiveListing } from "../../store/listing.js";
import { realLocation } from "../roots/real-path.js";

const ARCHIVE_FILTERS: readonly string[] = ["exclude", "include", "only"] satisfies ArchiveFilter[];

/** describe: the response of session/load and resume for a session (its modes and config options). */
export function withDurableSessions(
  app: AgentApp,
  host: HandlerHost,
  peer: Peer,
  describe: (session: LiveSession) => LoadSessionResponse,
): AgentApp {
  return app
    .onRequest("session/load", OpenSessionParams, async ({ params }) =>
      describe(await host.track(open(host, peer, params, { replay: true }))),
    )
    .onRequest("session/resume", OpenSessionParams, async ({ params }) =>
      describe(await host.track(open(host, peer, params, { replay: false }))),
    )
    .onRequest("session/list", async ({ params }) => {
      if (params.cwd != null) assertAbsolute(params.cwd);
      const archived = params.archived ?? "exclude";
      if (!ARCHIVE_FILTERS.includes(archived))
        throw invalidParams(
          "archived",
          `unknown archive filter: ${JSON.stringify(archived)} (this host knows exclude, include and only)`,
        );
      const page = await host.store.list({
        cwd: params.cwd,
        cursor: params.cursor,
        pageSize: host.config.listPageSize,
        tenant: listedTenantFor(peer, params._meta),
        archived: archived as ArchiveFilter,
      });
      // A session open here shows its state and live last activity; a stored one is what the store says.
      return {
        ...page,
        sessions: page.sessions.map((info) =>
          host.sessions.has(info.sessionId) ? withLiveListing(info, host.sessions.get(info.sessionId).listing()) : info,
        ),
      };
    })
    .onRequest("session/close", async ({ params }) => {
      assertNotObserver(host.sessions, host.followed, peer, params.sessionId);
      await close(host, peer, params.sessionId);
      return {};
    })
    .onRequest("session/delete", async ({ params }) => {
      // Another tenant's session is answered as an unknown one: deleting it succeeds and changes nothing.
      if (!(await ownsStored(host, peer, params.sessionId))) return {};
      assertNotObserver(host.sessions, host.followed, peer, params.sessionId);
      await close(host, peer, params.sessionId);
      if (await host.store.remove(params.sessionId))
        host.logger.info({ sessionId: params.sessionId }, "session deleted");
      return {};
    });
}

/**
 * A stored session, open in this host: restored in a fresh worker (and, for load, replayed to the client). A
 * session already open on this connection is answered from its live record (load replays it) rather than opened
 * twice; one open in another host process is refused by its lock.
 */
async function open(
  host: HandlerHost,
  peer: Peer,
  params: OpenSessionParams,
  options: { replay: boolean },
): Promise<LiveSession> {
  host.admission.assertAccepting();
  assertNoExtras(params);
  // The spec: load and resume use the servers the client passes now, not the ones the session had.
  const mcpServers = mcpServersFrom(params.mcpServers);
  // A system prompt given now replaces the session's; none given keeps it.
  const systemPrompt = systemPromptFrom(params.systemPrompt);
  assertAbsolute(params.cwd);
  const id = params.sessionId;
  const live = findVisible(host.sessions, peer, id);
  if (live) {
    await assertSameCwd(live.settings.cwd, params.cwd);
    await takeOver(host, live, peer);
    await live.useMcpServers(mcpServers);
    if (systemPrompt) await live.setSystemPrompt(systemPrompt);
    if (options.replay) await live.replayHistory();
    return live;
  }
  const header = await visibleStoredHeader(host.store, peer, id);
  await assertSameCwd(header.cwd, params.cwd);
  // Roots configured (or narrowed) since the session was made bind it too.
  await host.roots.check("cwd", header.cwd, header.tenant ?? null);
  const cwd = await stat(header.cwd).catch(() => null);
  if (!cwd?.isDirectory()) throw invalidParams("cwd", `the session's cwd is no longer a directory: ${header.cwd}`);
  const model = host.models.resolve(header.model.model);
  const session = await openSession(host, {
    kind: options.replay ? "load" : "resume",
    id,
    settings: { cwd: header.cwd, mode: header.mode, model, mcpServers, ...(systemPrompt ? { systemPrompt } : {}) },
    tenant: header.tenant ?? null,
    lineage: lineageOf(header),
    budget: header.budget,
    peer,
  });
  host.logger.info({ sessionId: id, replayed: options.replay }, options.replay ? "session loaded" : "session resumed");
  return session;
}

/**
 * load/resume from another connection takes a live session over, unless that connection is open and has a prompt in
 * flight; its updates go to the new connection from then on.
 */
async function takeOver(host: HandlerHost, session: LiveSession, peer: Peer): Promise<void> {
  const holder = session.attachment;
  if (holder === peer) return;
  if (session.busy) {
    if (holder && !holder.closed) {
      throw hostError(
        "PROMPT_IN_FLIGHT",
        `a prompt is in flight for session ${session.id} on another connection: load or resume it here once the prompt has ended`,
        { sessionId: session.id },
      );
    }
    // Its connection dropped mid-turn: the turn runs to its end (journaled), then this connection gets the session.
    await session.whenIdle();
  }
  session.attach(peer);
  host.logger.info(
    { sessionId: session.id, connection: peer.label, from: holder?.label ?? null },
    "session attached to another connection",
  );
}

/** Whether the peer may delete this id: a live session it sees, or a stored one of its tenant (or of none it can see). */
async function ownsStored(host: HandlerHost, peer: Peer, sessionId: string): Promise<boolean> {
  if (peer.tenant === null) return true;
  const live = host.sessions.find(sessionId);
  if (live) return peer.sees(live.tenant);
  try {
    return peer.sees((await host.store.readHeader(sessionId)).tenant ?? null);
  } catch {
    return false;
  }
}

/** session/close (and archive, delete): a live session this peer may see leaves the table, its children with it. */
export async function close(host: HandlerHost, peer: Peer, sessionId: string): Promise<void> {
  const session = findVisible(host.sessions, peer, sessionId);
  if (!session) return;
  if (session.attachment && !session.attachment.closed) assertAttachable(session, peer);
  host.sessions.delete(sessionId);
  await session.close(host.config.cancelGraceMs);
  host.logger.info({ sessionId }, "session closed");
}

/** The cwd a client names is the session's: as written, or by its real path (which a host with roots keeps). */
async function assertSameCwd(sessionCwd: string, requested: string): Promise<void> {
  if (resolve(sessionCwd) === resolve(requested) || (await realLocation(requested)) === sessionCwd) return;
  throw invalidParams("cwd", `the session's cwd is ${sessionCwd}, not ${requested}`, { sessionCwd });
}
