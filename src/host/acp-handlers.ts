// The ACP methods the host answers. Handlers validate and route; sessions and workers do the rest.
import { randomUUID } from "node:crypto";
import { stat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type SessionModeState } from "@agentclientprotocol/sdk";
import { SessionModeId } from "../protocol/port.js";
import type { HostContext } from "./host-context.js";
import { promptText } from "./prompt-content.js";
import { SessionRecord } from "./session.js";

const MODE_NAMES: Record<SessionModeId, { name: string; description: string }> = {
  ask: { name: "Ask", description: "Workspace-write sandbox; asks before every command and file write" },
  auto: { name: "Auto", description: "Workspace-write sandbox; no questions" },
  "read-only": { name: "Read only", description: "Read-only sandbox; write tools refused" },
  "full-access": { name: "Full access", description: "No sandbox" },
};

export function createAgentApp(host: HostContext): AgentApp {
  const availableModes = (): SessionModeState["availableModes"] =>
    SessionModeId.options
      .filter((id) => id !== "full-access" || host.config["allow-full-access"])
      .map((id) => ({ id, ...MODE_NAMES[id] }));
  const modeState = (current: SessionModeId): SessionModeState => ({ currentModeId: current, availableModes: availableModes() });

  return agent({ name: "acp-session-host" })
    .onRequest("initialize", () => ({
      protocolVersion: PROTOCOL_VERSION,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: false, audio: false, embeddedContext: false },
      },
      agentInfo: { name: "acp-session-host", version: host.version },
      authMethods: [],
    }))
    .onRequest("authenticate", () => ({}))
    .onRequest("session/new", async ({ params }) => {
      host.assertAccepting();
      if (params.mcpServers.length > 0) throw RequestError.invalidParams({ field: "mcpServers" }, "MCP servers are not supported yet");
      if ((params.additionalDirectories ?? []).length > 0) {
        throw RequestError.invalidParams({ field: "additionalDirectories" }, "additional directories are not supported yet");
      }
      await assertDirectory(params.cwd);
      host.sessions.assertCapacity();
      const id = randomUUID();
      const mode = host.config["default-mode"];
      const session = new SessionRecord(id, { cwd: params.cwd, mode, model: host.defaultModel }, host.sessionDeps);
      host.sessions.add(session);
      session.start();
      host.log.info({ sessionId: id, cwd: params.cwd }, "session created");
      return { sessionId: id, modes: modeState(mode) };
    })
    .onRequest("session/prompt", async ({ params }) => {
      host.assertAccepting();
      const session = host.sessions.get(params.sessionId);
      return session.prompt(promptText(params.prompt));
    })
    .onNotification("session/cancel", ({ params }) => {
      host.sessions.find(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", async ({ params }) => {
      const session = host.sessions.get(params.sessionId);
      const mode = SessionModeId.safeParse(params.modeId);
      if (!mode.success || !availableModes().some((m) => m.id === mode.data)) {
        throw RequestError.invalidParams({ field: "modeId" }, `unknown or unavailable mode: ${params.modeId}`);
      }
      await session.setMode(mode.data);
      return {};
    });
}

async function assertDirectory(cwd: string): Promise<void> {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ field: "cwd" }, `cwd must be an absolute path: ${cwd}`);
  const info = await stat(cwd).catch(() => null);
  if (!info?.isDirectory()) throw RequestError.invalidParams({ field: "cwd" }, `cwd is not an existing directory: ${cwd}`);
}
