// The log header of a session made by session/new (or a child's): what both stores write first.
import { LOG_FORMAT, LOG_FORMAT_VERSION, type LogHeader } from "../protocol/log/session-log.js";
import type { NewSessionSettings } from "./session-store.js";

export function newSessionHeader(
  sessionId: string,
  settings: NewSessionSettings,
  hostVersion: string,
  tenant: string | null,
): LogHeader {
  return {
    format: LOG_FORMAT,
    formatVersion: LOG_FORMAT_VERSION,
    sessionId,
    cwd: settings.cwd,
    createdAt: new Date().toISOString(),
    mode: settings.mode,
    model: settings.model,
    hostVersion,
    ...(tenant ? { tenant } : {}),
    ...(settings.systemPrompt ? { systemPrompt: settings.systemPrompt } : {}),
    ...(settings.budget ? { budget: settings.budget } : {}),
    ...(settings.parent ? { parent: settings.parent } : {}),
  };
}
