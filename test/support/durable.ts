// Test support for durable sessions: the state dir's files, hand-made logs, and session/update streams reduced
// to what a reader compares.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import {
  LOG_FORMAT,
  LOG_FORMAT_VERSION,
  sessionPaths,
  type LogEntry,
  type LogHeader,
  type SessionPaths,
} from "../../src/protocol/log/session-log.js";

export function paths(stateDir: string, sessionId: string): SessionPaths {
  return sessionPaths(stateDir, sessionId);
}

/** The log's lines after the header, parsed. */
export function logEntries(stateDir: string, sessionId: string): LogEntry[] {
  const lines = readFileSync(paths(stateDir, sessionId).log, "utf8").split("\n");
  return lines.slice(1, -1).map((line) => JSON.parse(line) as LogEntry);
}

export function header(sessionId: string, cwd: string): LogHeader {
  return {
    format: LOG_FORMAT,
    formatVersion: LOG_FORMAT_VERSION,
    sessionId,
    cwd,
    createdAt: "2026-01-02T03:04:05.000Z",
    mode: "ask",
    model: { provider: "scripted", model: "scripted", retries: 0 },
    hostVersion: "test",
  };
}

/** Writes a log as a previous process might have left it: whole lines, then an optional torn tail. */
export function writeLog(stateDir: string, sessionId: string, lines: unknown[], tail = ""): string {
  const path = paths(stateDir, sessionId).log;
  writeFileSync(
    path,
    lines.map((line) => `${typeof line === "string" ? line : JSON.stringify(line)}\n`).join("") + tail,
  );
  return path;
}

export function exists(path: string): boolean {
  return existsSync(path);
}

/** What a reader compares of a session's updates: prompts, answers, tool calls and their final state. */
export function transcript(updates: readonly SessionUpdate[]): string[] {
  const ids = new Map<string, number>();
  const callName = (id: string) => {
    if (!ids.has(id)) ids.set(id, ids.size + 1);
    return `call#${ids.get(id)}`;
  };
  const lines: string[] = [];
  for (const update of updates) {
    switch (update.sessionUpdate) {
      case "user_message_chunk":
        if (update.content.type === "text") lines.push(`user: ${update.content.text}`);
        break;
      case "agent_message_chunk":
        if (update.content.type === "text") lines.push(`agent: ${update.content.text}`);
        break;
      case "agent_thought_chunk":
        if (update.content.type === "text") lines.push(`thought: ${update.content.text}`);
        break;
      case "tool_call":
        lines.push(`tool ${callName(update.toolCallId)}: ${update.title} ${JSON.stringify(update.rawInput)}`);
        break;
      case "tool_call_update":
        // The final update (status completed/failed) only: in_progress and output deltas are not replayed.
        if (update.status === "completed" || update.status === "failed") {
          const text = (update.content ?? [])
            .map((item) => (item.type === "content" && item.content.type === "text" ? item.content.text : ""))
            .join("");
          lines.push(`tool ${callName(update.toolCallId)} ${update.status}: ${text}`);
        }
        break;
      default:
        break;
    }
  }
  return lines;
}

/** Polls until the check passes (or throws its last failure once the time is up). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}
