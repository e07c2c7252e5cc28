// session/fork: a new session (its own id, worker and log) whose history is its source's up to the source's last ended
// turn. The source may be live, hibernated or only stored, here or on another host, even mid-turn: the store copies
// its log (src/store/…) and it is left as it was. The fork takes its source's mode, model and system prompt at the
// fork point (a system prompt given now replaces it), the request's cwd and MCP servers, and is attached here.
import type { AgentApp, ForkSessionResponse, LoadSessionResponse } from "@agentclientprotocol/sdk/unstable";
import type { HandlerHost } from "./handler-host.js";
import type { Peer } from "../connection/peer.js";
import { openSession } from "../session/open-session.js";
import type { LiveSession } from "../session/session.js";
import type { ForkedSession } from "../../store/session-store.js";
import { mcpServersFrom } from "./mcp-servers-param.js";
import { assertDirectory, assertNoExtras } from "./request-checks.js";
import { cwdWithinRoots } from "./workspace-params.js";
import { assertNoWorkspaceMeta } from "./workspace-meta-param.js";
import { findVisible } from "./session-access.js";
import { ForkSessionParams } from "./session-params.js";
import { systemPromptFrom } from "./system-prompt-param.js";
import { LIST_META_KEY } from "../../store/listing.js";

export function withForks(
  app: AgentApp,
  host: HandlerHost,
  peer: Peer,
  describe: (session: LiveSession) => LoadSessionResponse,
): AgentApp {
  return app.onRequest("session/fork", ForkSessionParams, async ({ params }) => fork(host, peer, params, describe));
}

async function fork(
  host: HandlerHost,
  peer: Peer,
  params: ForkSessionParams,
  describe: (session: LiveSession) => LoadSessionResponse,
): Promise<ForkSessionResponse> {
  host.admission.assertAccepting();
  // The fork is its source's tenant's: a tenant's connection sees only its own, so its roots are the source's; the
  // operator's are checked once the source's tenant is known.
  let cwd = peer.operator ? params.cwd : await cwdWithinRoots(host.roots, peer.tenant, params);
  assertNoExtras(params);
  assertNoWorkspaceMeta(params._meta);
  const mcpServers = mcpServersFrom(params.mcpServers);
  const systemPrompt = systemPromptFrom(params.systemPrompt);
  await assertDirectory(cwd);
  const sourceId = params.sessionId;
  // Another tenant's session is answered as an unknown one.
  const live = findVisible(host.sessions, peer, sourceId);
  const tenant = live ? live.tenant : ((await host.store.readHeader(sourceId)).tenant ?? null);
  if (!peer.sees(tenant)) throw host.store.unknownSession(sourceId);
  if (peer.operator) cwd = await cwdWithinRoots(host.roots, tenant, params);
  let forked!: ForkedSession;
  const session = await openSession(host, {
    kind: "fork",
    request: {
      sourceId,
      cwd,
      tenant,
      hostVersion: host.version,
      ...(systemPrompt ? { systemPrompt } : {}),
    },
    settings: (made) => {
      forked = made;
      const model = host.models.resolve(made.model.model);
      return { cwd, mode: made.mode, model, mcpServers, ...(systemPrompt ? { systemPrompt } : {}) };
    },
    peer,
  });
  host.logger.info(
    { sessionId: forked.sessionId, forkOf: forked.forkOf, bytes: forked.bytesWritten, connection: peer.label },
    "session forked",
  );
  return { sessionId: forked.sessionId, ...describe(session), _meta: { [LIST_META_KEY]: { forkOf: forked.forkOf } } };
}
