// A scripted session's init in auto mode, with no spawner, and its log's header: what the build's warm-up, a standby
// thread's warm-up and a measurement of the start need.
import type { WorkerInit } from "../src/protocol/port.js";
import { LOG_FORMAT, LOG_FORMAT_VERSION, type LogHeader } from "../src/protocol/log/session-log.js";

const SCRIPTED_MODEL = { provider: "scripted" as const, model: "scripted", retries: 0 };

export function scriptedSessionInit(sessionId: string, cwd: string, log: WorkerInit["log"]): WorkerInit {
  return {
    sessionId,
    cwd,
    mode: "auto",
    model: SCRIPTED_MODEL,
    maxTurnRequests: 50,
    maxTurnToolCalls: 200,
    compactAt: 0.8,
    streamChunks: false,
    allowFaultInjection: false,
    outputCapBytes: 65536,
    maxBackgroundTasks: 8,
    outputWindowBytes: 1024 * 1024,
    nice: 0,
    sandbox: { bwrapPath: null, network: false, allowFullAccess: false, hidden: [], confined: false },
    spawner: null,
    mcpServers: [],
    mcpStartupTimeoutMs: 10_000,
    log,
  };
}

export function scriptedLogHeader(sessionId: string, cwd: string, hostVersion: string): LogHeader {
  return {
    format: LOG_FORMAT,
    formatVersion: LOG_FORMAT_VERSION,
    sessionId,
    cwd,
    createdAt: new Date().toISOString(),
    mode: "auto",
    model: SCRIPTED_MODEL,
    hostVersion,
  };
}
