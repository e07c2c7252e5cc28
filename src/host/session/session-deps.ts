// What a live session is given by the host that makes it: its settings, the host's parts it uses, and the hooks
// it tells of what happens to it (lifecycle-hooks.ts; a session never reaches for the host itself).
import type { Budget } from "../../protocol/budget.js";
import type { Share } from "../../protocol/gateway-asks.js";
import type { MessagePort } from "node:worker_threads";
import type { WorkerPool } from "../../pool/worker-pool.js";
import type { McpServerConfig } from "../../protocol/mcp-servers.js";
import type {
  ChildOutcome,
  ModelConfig,
  SessionModeId,
  SpawnerGrant,
  WorkerInit,
  SettingsFrom,
} from "../../protocol/port.js";
import type { WorkerEvent } from "../../protocol/worker-events.js";
import type { SystemPromptSetting } from "../../protocol/system-prompt.js";
import type { SessionStore } from "../../store/session-store.js";
import type { Logger } from "../../logger.js";
import type { LifecycleHooks } from "./lifecycle-hooks.js";
import type { WorkerSlots } from "./worker-slots.js";

export interface SessionSettings {
  cwd: string;
  mode: SessionModeId;
  model: ModelConfig;
  /** The MCP servers the client passed with session/new, load or resume (each worker connects them afresh). */
  mcpServers: McpServerConfig[];
  /** A system prompt a client gave (new, load, resume, fork): each worker is given it; absent: the log's. */
  systemPrompt?: SystemPromptSetting;
  /** Its tree's budget as _host/set_budget set it here (the next worker journals it); absent: its log's. */
  budget?: Budget;
}

/** A parent's spawn_agent request, as its worker posted it. */
export type ChildRequest = Extract<WorkerEvent, { type: "child_request" }>;

/** Child sessions: made and run by the host for a parent session's spawn_agent (src/host/children/). */
export interface Delegation {
  /** Runs the parent's request: makes or reuses the child, runs the prompt there. Never throws: a refusal is an outcome. */
  run(parentId: string, request: ChildRequest): Promise<ChildOutcome>;
  /** The parent is closing: its children close too (resolves once they have). */
  closing(parentId: string, graceMs: number): Promise<void>;
}

export interface SessionDeps {
  pool: WorkerPool;
  logger: Logger;
  cancelGraceMs: number;
  /** A turn running longer is cancelled (0: never). */
  turnTimeoutMs: number;
  /** Told of turn ends, cancels, tool call ends, worker starts and exits, closes (the metrics, child sessions). */
  hooks: LifecycleHooks;
  /** Builds the worker's init from the session's current settings. */
  workerInit(id: string, settings: SessionSettings, settingsFrom: SettingsFrom): Promise<WorkerInit>;
  slots: WorkerSlots;
  store: SessionStore;
  /** Idle time after which the session's worker is released (0: never). */
  hibernateAfterMs: number;
  /**
   * --max-output-stall-ms: how long a replay waits for its client to take a page before it gives up (the client is
   * detached, OBSERVER_TOO_SLOW), so a client that never reads holds no worker.
   */
  replayStallMs: number;
  /** This host's configuration of a model a log names (the host's default model when it has none by that name). */
  resolveModel(model: ModelConfig): ModelConfig;
  /** A new port to the host's model gateway for this session's worker; null when the host has no gateway. */
  gatewayPort?(id: string, share: Share): MessagePort | null;
  /** A fresh spawner grant for this session (after the host restarted its spawner); null when there is none. */
  grantFor?(id: string, cwd: string): SpawnerGrant | null;
  /** Ends the session's commands in the spawner, background tasks included (they outlive its workers, not it). */
  endSession?(id: string): Promise<void>;
  delegation?: Delegation;
}
