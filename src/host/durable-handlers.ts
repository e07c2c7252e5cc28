// The ACP methods of durable sessions: session/load, resume, list, close and delete. A session is its log in
// the state dir; these open it in this host (restored in a fresh worker), list the stored ones, and end them.
import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { RequestError, type AgentApp, type AgentCapabilities, type LoadSessionResponse } from "@agentclientprotocol/sdk";
import type { HostContext } from "./host-context.js";
import { SessionRecord } from "./session.js";

/** What initialize advertises for the methods below. */
export const DURABLE_CAPABILITIES = {
  loadSession: true,
  sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
} satisfies AgentCapabilities;

interface OpenParams {
  sessionId: string;
  cwd: string;
  mcpServers?: unknown[] | undefined;
  additionalDirectories?: string[] | undefined;
}

/** describe: the response of session/load and resume for a session (its modes and config options). */
export function withDurableSessions(app: AgentApp, host: HostContext, describe: (session: SessionRecord) => LoadSessionResponse): AgentApp {
  return app
    .onRequest("session/load", async ({ params }) => describe(await open(host, params, { replay: true })))
    .onRequest("session/resume", async ({ params }) => describe(await open(host, params, { replay: false })))
    .onRequest("session/list", async ({ params }) => {
      if (params.cwd != null && !isAbsolute(params.cwd)) throw RequestError.invalidParams({ field: "cwd" }, `cwd must be an absolute path: ${params.cwd}`);
      return host.store.list({ cwd: params.cwd, cursor: params.cursor, pageSize: host.config["list-page-size"] });
    })
    .onRequest("session/close", async ({ params }) => {
      await close(host, params.sessionId);
      return {};
    })
    .onRequest("session/delete", async ({ params }) => {
      await close(host, params.sessionId);
      if (await host.store.remove(params.sessionId)) host.log.info({ sessionId: params.sessionId }, "session deleted");
      return {};
    });
}

/**
 * A stored session, open in this host: restored in a fresh worker (and, for load, replayed to the client). A
 * session already open on this connection is answered from its live record (load replays it) rather than opened
 * twice; one open in another host process is refused by its lock.
 */
async function open(host: HostContext, params: OpenParams, options: { replay: boolean }): Promise<SessionRecord> {
  host.assertAccepting();
  if ((params.mcpServers ?? []).length > 0) throw RequestError.invalidParams({ field: "mcpServers" }, "MCP servers are not supported yet");
  if ((params.additionalDirectories ?? []).length > 0) {
    throw RequestError.invalidParams({ field: "additionalDirectories" }, "additional directories are not supported yet");
  }
  if (!isAbsolute(params.cwd)) throw RequestError.invalidParams({ field: "cwd" }, `cwd must be an absolute path: ${params.cwd}`);
  const id = params.sessionId;
  const live = host.sessions.find(id);
  if (live) {
    assertSameCwd(live.settings.cwd, params.cwd);
    if (options.replay) await live.replayHistory();
    return live;
  }
  const header = await host.store.readHeader(id);
  assertSameCwd(header.cwd, params.cwd);
  const cwd = await stat(header.cwd).catch(() => null);
  if (!cwd?.isDirectory()) throw RequestError.invalidParams({ field: "cwd" }, `the session's cwd is no longer a directory: ${header.cwd}`);
  host.sessions.assertCapacity();
  await host.store.lock(id);
  const model = host.models.get(header.model.model) ?? host.defaultModel;
  const session = new SessionRecord(id, { cwd: header.cwd, mode: header.mode, model }, host.sessionDeps, { stored: true });
  try {
    if (options.replay) await session.replayHistory();
    else await session.restore();
  } catch (error) {
    await session.close(0);
    throw error;
  }
  // The record joins the table only now: a request racing the load finds no half-open session.
  host.sessions.add(session);
  host.log.info({ sessionId: id, replayed: options.replay }, options.replay ? "session loaded" : "session resumed");
  return session;
}

async function close(host: HostContext, sessionId: string): Promise<void> {
  const session = host.sessions.find(sessionId);
  if (!session) return;
  host.sessions.delete(sessionId);
  await session.close(host.config["cancel-grace-ms"]);
  host.log.info({ sessionId }, "session closed");
}

function assertSameCwd(sessionCwd: string, requested: string): void {
  if (resolve(sessionCwd) !== resolve(requested)) {
    throw RequestError.invalidParams({ field: "cwd", sessionCwd }, `the session's cwd is ${sessionCwd}, not ${requested}`);
  }
}
