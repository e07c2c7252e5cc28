// The on-disk format of a durable session, the one module both threads import. Under --state-dir:
//   sessions/<id>.jsonl      the log: a header line, then one entry per line, append-only; compaction rewrites it
//                            (header with formatVersion 2, a snapshot line, the replayable history, see
//                            src/protocol/log/snapshot.ts) into a new file renamed over it
//   sessions/<id>.jsonl.compact  a compaction's new file before its rename (a crash can leave one; it is ignored)
//   sessions/<id>.jsonl.restore  the restore point: the state at an offset of the log, where a restore starts (a cache
//                            the worker writes between turns, ignored unless it fits the log; workers/log/restore-point.ts)
//   sessions/<id>.meta.json  the sidecar: what session/list shows, rewritten (atomically) at every turn end
//   sessions/<id>.lock       the pid of the host process that has the session open
//   sessions/<id>.out/       output files of the session's tool runs, if any
//   deleted/<id>             a tombstone: the id was deleted and is never loaded or handed out again
// The main thread creates a log (header), reads headers and sidecars, and owns locks and tombstones; the session
// worker appends entries, repairs the log when it restores it, and rewrites the sidecar.
import { Budget } from "../budget.js";
import { join } from "node:path";
import * as z from "zod/mini";
import { McpServerRecord } from "../mcp-servers.js";
import { PlanEntry } from "../plan.js";
import { ModelConfig, SessionModeId, StopReason, ToolKind } from "../port.js";
import { SystemPromptSetting } from "../system-prompt.js";

export const LOG_FORMAT = "acp-session-host/session-log";
/** A log as the main thread creates it. */
export const LOG_FORMAT_VERSION = 1;
/** A compacted log: its second line is a snapshot, followed by the replayable history (log/snapshot.ts). */
export const COMPACTED_LOG_FORMAT_VERSION = 2;

/** A child session's parent and how deep below the root session it is (1: the root's child). */
export const ParentLink = z.object({ sessionId: z.uuid(), depth: z.int().check(z.positive()) });
export type ParentLink = z.infer<typeof ParentLink>;

/** A fork's source and the fork point: how many of the source's turns had ended there (the fork's history is those). */
export const ForkPoint = z.object({ sessionId: z.uuid(), turns: z.int().check(z.nonnegative()) });
export type ForkPoint = z.infer<typeof ForkPoint>;

export const LogHeader = z.object({
  format: z.literal(LOG_FORMAT),
  formatVersion: z.union([z.literal(LOG_FORMAT_VERSION), z.literal(COMPACTED_LOG_FORMAT_VERSION)]),
  sessionId: z.uuid(),
  cwd: z.string().check(z.minLength(1)),
  createdAt: z.iso.datetime(),
  mode: SessionModeId,
  model: ModelConfig,
  hostVersion: z.string(),
  /** The tenant whose session it is (a listener with --tokens-file); absent: no tenant. */
  tenant: z.optional(z.string().check(z.minLength(1))),
  /** The system prompt the session was created with (a later one is a system_prompt entry); absent: the host's own. */
  systemPrompt: z.optional(SystemPromptSetting),
  /** Its session tree's budget as session/new gave it (docs/models.md, Budgets); absent: none. */
  budget: z.optional(Budget),
  /** A child session's parent (its mode and cwd above were checked against the parent's when it was created). */
  parent: z.optional(ParentLink),
  /** A fork's source and fork point. */
  forkOf: z.optional(ForkPoint),
});
export type LogHeader = z.infer<typeof LogHeader>;

/**
 * One line after the header. The agent loop writes an entry before it posts the event that shows it. Built on its
 * first parse: the main thread reads entries with it (a fork's cut); a session worker checks them by hand
 * (workers/log/log-entry-check.ts) and never builds it.
 */
export const LogEntry = z.lazy(() => {
  const TurnId = z.string().check(z.minLength(1));
  const ToolCallId = z.string().check(z.minLength(1));
  const Count = z.int().check(z.nonnegative());
  const ToolCallRequest = z.object({ id: z.string(), name: z.string(), input: z.unknown() });
  return z.discriminatedUnion("type", [
    z.object({ type: z.literal("turn_start"), turnId: TurnId, at: z.string() }),
    z.object({ type: z.literal("user_message"), turnId: TurnId, text: z.string() }),
    z.object({
      type: z.literal("assistant_message"),
      turnId: TurnId,
      blocks: z.array(z.string()),
      toolCalls: z.array(ToolCallRequest),
      /** The model's reasoning, shown as agent_thought_chunk. */
      thought: z.optional(z.string()),
    }),
    /**
     * The conversation was compacted: the model's history is `summary`, then its last `kept` messages (as rebuilt from
     * the entries before this one). `turns` older turns were summarised; `tokensBefore`/`tokensAfter` are estimates.
     * `level`: "normal", or "hard" (the request was still too long: every turn before the one in flight was summarised);
     * `replacedTokens`: the estimate of the messages the summary replaced (it takes at most half of that). Both are
     * absent in logs written before they were recorded, whose summaries were not held to half of what they replaced.
     */
    z.object({
      type: z.literal("compaction"),
      turnId: TurnId,
      kept: Count,
      summary: z.string(),
      turns: Count,
      tokensBefore: Count,
      tokensAfter: Count,
      level: z.optional(z.enum(["normal", "hard"])),
      replacedTokens: z.optional(Count),
      /** Names it to a client that follows compactions by id (compaction_update); absent in older logs. */
      compactionId: z.optional(z.string().check(z.minLength(1))),
    }),
    z.object({
      type: z.literal("tool_call"),
      turnId: TurnId,
      toolCallId: ToolCallId,
      callId: z.string(),
      name: z.string(),
      title: z.string(),
      kind: ToolKind,
      input: z.unknown(),
    }),
    z.object({
      type: z.literal("tool_result"),
      turnId: TurnId,
      toolCallId: ToolCallId,
      callId: z.string(),
      name: z.string(),
      result: z.string(),
      isError: z.boolean(),
    }),
    /** A model response's token counts (summary requests' too): the session's cost inputs survive a restore. */
    z.object({
      type: z.literal("usage"),
      turnId: TurnId,
      tokens: z.object({ prompt: Count, completion: Count, cached: Count }),
    }),
    z.object({ type: z.literal("permission"), turnId: TurnId, toolCallId: ToolCallId, outcome: z.string() }),
    z.object({ type: z.literal("mode"), mode: SessionModeId }),
    /** The session's system prompt from here on (a client gave a new one with load, resume or fork). */
    z.object({ type: z.literal("system_prompt"), systemPrompt: SystemPromptSetting }),
    /** Its session tree's budget from now on (_host/set_budget); the header's until the first. */
    z.object({ type: z.literal("budget"), budget: Budget }),
    /** The agent's plan as update_plan last set it (the whole plan: each replaces the one before). */
    z.object({ type: z.literal("plan"), turnId: TurnId, entries: z.array(PlanEntry) }),
    z.object({ type: z.literal("model"), model: ModelConfig }),
    /** The MCP servers the session runs with from here on (session/new, load, resume): no env or header values. */
    z.object({ type: z.literal("mcp_servers"), servers: z.array(McpServerRecord) }),
    z.object({
      type: z.literal("turn_end"),
      turnId: TurnId,
      /** "interrupted": closed by load-repair, the process ended mid-turn. */
      stopReason: z.union([StopReason, z.enum(["error", "interrupted"])]),
      error: z.optional(z.string()),
    }),
  ]);
});
export type LogEntry = z.infer<typeof LogEntry>;

export const SIDECAR_FORMAT = "acp-session-host/session-sidecar";

export const SessionSidecar = z.object({
  format: z.literal(SIDECAR_FORMAT),
  sessionId: z.uuid(),
  cwd: z.string().check(z.minLength(1)),
  /** From the first prompt; null until there is one. */
  title: z.nullable(z.string()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
  turns: z.int().check(z.nonnegative()),
  /** The header's tenant, so session/list filters without opening logs. */
  tenant: z.optional(z.string().check(z.minLength(1))),
  /** The header's parent and fork point, so session/list shows them without opening logs. */
  parent: z.optional(ParentLink),
  forkOf: z.optional(ForkPoint),
});
export type SessionSidecar = z.infer<typeof SessionSidecar>;

export interface SessionPaths {
  log: string;
  /** A compaction's new log before it is renamed over the log. */
  compacting: string;
  /** The log's restore point (a cache of the state at an offset of the log). */
  restorePoint: string;
  sidecar: string;
  lock: string;
  outputDir: string;
  tombstone: string;
}

export function sessionPaths(stateDir: string, sessionId: string): SessionPaths {
  const sessions = sessionsDir(stateDir);
  return {
    log: join(sessions, `${sessionId}.jsonl`),
    compacting: join(sessions, `${sessionId}.jsonl.compact`),
    restorePoint: join(sessions, `${sessionId}.jsonl.restore`),
    sidecar: join(sessions, `${sessionId}.meta.json`),
    lock: join(sessions, `${sessionId}.lock`),
    outputDir: join(sessions, `${sessionId}.out`),
    tombstone: join(deletedDir(stateDir), sessionId),
  };
}

/** Where a restore point is written before it is renamed over the one at `path` (a crash can leave it). */
export const freshRestorePoint = (path: string): string => `${path}.new`;

export const sessionsDir = (stateDir: string): string => join(stateDir, "sessions");
export const deletedDir = (stateDir: string): string => join(stateDir, "deleted");
export const LOG_SUFFIX = ".jsonl";

const SessionId = z.uuid();
/** Only ids of this form ever name a file: anything else is an unknown session, never a path. */
export function isSessionId(id: string): boolean {
  return SessionId.safeParse(id).success;
}

/** Why a log cannot be used; the message completes "session log <path> cannot be used: …". */
export class LogError extends Error {}

export function parseHeaderLine(line: string, sessionId: string): LogHeader {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new LogError("its first line is not JSON (corrupt header)");
  }
  if (typeof json !== "object" || json === null || (json as { format?: unknown }).format !== LOG_FORMAT) {
    throw new LogError(`it is not an acp-session-host session log (its first line has no "format": "${LOG_FORMAT}")`);
  }
  const version = (json as { formatVersion?: unknown }).formatVersion;
  if (typeof version === "number" && version > COMPACTED_LOG_FORMAT_VERSION) {
    throw new LogError(
      `it was written by a newer host (format version ${version}; this host reads up to ${COMPACTED_LOG_FORMAT_VERSION})`,
    );
  }
  const parsed = LogHeader.safeParse(json);
  if (!parsed.success)
    throw new LogError(`its header is corrupt: ${z.prettifyError(parsed.error).replaceAll("\n", " ")}`);
  if (parsed.data.sessionId !== sessionId)
    throw new LogError(`its header names another session (${parsed.data.sessionId})`);
  return parsed.data;
}

/** A session's title when none was set: the first line of its first prompt (that is not blank), cut to 80 characters. */
export function titleFrom(text: string): string {
  const first = text.split("\n").find((line) => line.trim().length > 0) ?? "";
  const line = first.replace(/\s+/g, " ").trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
