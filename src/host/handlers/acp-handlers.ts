// The ACP methods the host answers. Handlers validate and route; sessions and workers do the rest.
import {
  agent,
  PROTOCOL_VERSION,
  type AgentApp,
  type NewSessionResponse,
  type SessionModeState,
} from "@agentclientprotocol/sdk/unstable";
import { SessionModeId } from "../../protocol/port.js";
import { HOST_STATS_METHOD, HostStatsRequest } from "../../protocol/host-stats.js";
import { HOST_STATUS_METHOD, HostStatusRequest } from "../../protocol/host-status.js";
import { invalidParams, operatorOnly } from "../../request-errors.js";
import { assertDirectory, assertNoExtras } from "./request-checks.js";
import { cwdWithinRoots } from "./workspace-params.js";
import { assertNoWorkspaceMeta } from "./workspace-meta-param.js";
import { mcpServersFrom } from "./mcp-servers-param.js";
import { NewSessionParams } from "./session-params.js";
import { hostStatus } from "../ops/host-status-page.js";
import { AGENT_CAPABILITIES } from "./capabilities.js";
import { withDurableSessions } from "./durable-handlers.js";
import { withForks } from "./fork-handler.js";
import { withSessionInfo } from "./session-info-handlers.js";
import { withAttach } from "./attach-handlers.js";
import { PROMPT_ID_META_KEY } from "../../protocol/attach.js";
import { systemPromptFrom } from "./system-prompt-param.js";
import { priorityFrom } from "./priority-param.js";
import { budgetFrom } from "./budget-param.js";
import { withBudgets } from "./budget-handlers.js";
import { wider } from "../children/mode-width.js";
import type { HandlerHost } from "./handler-host.js";
import type { HostStatsMonitor } from "../ops/host-stats-monitor.js";
import { MODEL_OPTION_ID } from "../models.js";
import type { Peer } from "../connection/peer.js";
import { attachedSession, findVisible } from "./session-access.js";
import { promptText } from "./prompt-content.js";
import { traced } from "../traces/traced-answer.js";
import { tracedSession } from "../traces/traced-session.js";
import { openSession } from "../session/open-session.js";
import type { LiveSession } from "../session/session.js";

const MODE_NAMES: Record<SessionModeId, { name: string; description: string }> = {
  ask: { name: "Ask", description: "Workspace-write sandbox; asks before every command and file write" },
  auto: { name: "Auto", description: "Workspace-write sandbox; no questions" },
  "read-only": { name: "Read only", description: "Read-only sandbox; write tools refused" },
  "full-access": { name: "Full access", description: "No sandbox" },
};

/** The app serving one connection (peer); every connection of the host shares its session table. */
export function createAgentApp(host: HandlerHost, peer: Peer, stats: HostStatsMonitor): AgentApp {
  const availableModes = (): SessionModeState["availableModes"] =>
    SessionModeId.options
      .filter((id) => id !== "full-access" || host.config.allowFullAccess)
      .map((id) => ({ id, ...MODE_NAMES[id] }));
  const modeState = (current: SessionModeId): SessionModeState => ({
    currentModeId: current,
    availableModes: availableModes(),
  });

  const newSession = async (params: NewSessionParams): Promise<NewSessionResponse> => {
    host.admission.assertAccepting();
    const cwd = await cwdWithinRoots(host.roots, peer.tenant, params);
    assertNoExtras(params);
    assertNoWorkspaceMeta(params._meta);
    const mcpServers = mcpServersFrom(params.mcpServers);
    const systemPrompt = systemPromptFrom(params.systemPrompt);
    const priority = priorityFrom(params._meta);
    const budget = budgetFrom(params._meta, host.config.sessionBudgetTokens);
    await assertDirectory(cwd);
    const mode = host.config.defaultMode;
    const settings = {
      cwd,
      mode,
      model: host.defaultModel,
      mcpServers,
      ...(systemPrompt ? { systemPrompt } : {}),
    };
    const session = await openSession(host, {
      kind: "new",
      settings,
      tenant: peer.tenant,
      peer,
      place: { priority, ...(budget ? { budget } : {}) },
    });
    const id = session.id;
    host.logger.info({ sessionId: id, cwd, connection: peer.label, tenant: peer.tenant }, "session created");
    return {
      sessionId: id,
      modes: modeState(mode),
      configOptions: host.models.configOptions(session.settings.model.model),
    };
  };

  const app = agent({ name: "acp-session-host" })
    // Extension for orchestrators and the benchmark: event-loop lag, thread and session counts, memory. Host-wide
    // figures (and an operator's control, the lag window's reset): a tenant's connection needs an operator's token.
    .onRequest(HOST_STATS_METHOD, HostStatsRequest, ({ params }) => {
      if (!peer.operator) throw operatorOnly(HOST_STATS_METHOD);
      return stats.snapshot(params);
    })
    .onRequest(HOST_STATUS_METHOD, HostStatusRequest, async ({ params }) => {
      if (!peer.operator) throw operatorOnly(HOST_STATUS_METHOD);
      return hostStatus(host, peer, stats, params);
    })
    .onRequest("initialize", ({ params }) => {
      // What this client understands decides what it is sent: child sessions' traffic, compaction updates.
      peer.initialized(params.clientCapabilities);
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: AGENT_CAPABILITIES,
        agentInfo: { name: "acp-session-host", version: host.version },
        authMethods: [],
      };
    })
    .onRequest("authenticate", () => ({}))
    .onRequest("session/new", NewSessionParams, async ({ params }) => {
      const done = host.starts.creating();
      try {
        return await newSession(params);
      } finally {
        done();
      }
    })
    .onRequest("session/prompt", async ({ params }) => {
      host.admission.assertAccepting();
      const session = attachedSession(host.sessions, peer, params.sessionId);
      const text = promptText(params.prompt);
      const span = host.tracing?.turn(tracedSession(session), params._meta, text) ?? null;
      const promptId = params._meta?.[PROMPT_ID_META_KEY];
      const answer = session.prompt(text, span?.trace ?? null, false, typeof promptId === "string" ? promptId : null);
      return host.track(span ? traced(answer, span) : answer);
    })
    .onNotification("session/cancel", ({ params }) => {
      const session = findVisible(host.sessions, peer, params.sessionId);
      const role = session?.roleOf(peer);
      if (role === "owner" || role === "controller") session!.cancel();
      // A notification has no answer: an observer's cancel is refused in the log only.
      else if (role === "observer")
        host.logger.warn({ sessionId: session!.id, connection: peer.label }, "session/cancel from an observer refused");
    })
    .onRequest("session/set_config_option", async ({ params }) => {
      const session = attachedSession(host.sessions, peer, params.sessionId);
      if (params.configId !== MODEL_OPTION_ID) {
        throw invalidParams(
          "configId",
          `unknown config option: ${params.configId} (this host has: ${MODEL_OPTION_ID})`,
        );
      }
      const model = typeof params.value === "string" ? host.models.get(params.value) : undefined;
      if (!model) {
        throw invalidParams(
          "value",
          `unknown model: ${String(params.value)} (this host has: ${host.models.names.join(", ")})`,
        );
      }
      await session.setModel(model);
      const configOptions = host.models.configOptions(model.model);
      await session.send({ sessionUpdate: "config_option_update", configOptions });
      return { configOptions };
    })
    .onRequest("session/set_mode", async ({ params }) => {
      const session = attachedSession(host.sessions, peer, params.sessionId);
      const mode = SessionModeId.safeParse(params.modeId);
      if (!mode.success || !availableModes().some((m) => m.id === mode.data)) {
        throw invalidParams("modeId", `unknown or unavailable mode: ${params.modeId}`);
      }
      const ceiling = session.lineage.modeCeiling;
      if (ceiling && wider(mode.data, ceiling)) {
        throw invalidParams(
          "modeId",
          `session ${session.id} is a child session made in mode ${ceiling}: its mode can be that or narrower, never ${mode.data}`,
          { modeCeiling: ceiling },
        );
      }
      await session.setMode(mode.data);
      return {};
    });
  const describe = (session: LiveSession) => ({
    modes: modeState(session.settings.mode),
    configOptions: host.models.configOptions(session.settings.model.model),
  });
  return withBudgets(
    withAttach(
      withSessionInfo(withForks(withDurableSessions(app, host, peer, describe), host, peer, describe), host, peer),
      host,
      peer,
    ),
    host,
    peer,
  );
}
