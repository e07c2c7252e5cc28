// What the main thread calls on a session worker (comlink over the commands port); the worker parses the arguments.
import type { Budget } from "./budget.js";
import type { MessagePort } from "node:worker_threads";
import type { ModelConfig, ReplayedRecords, SessionModeId, SpawnerGrant, WorkerInit } from "./port.js";
import type { SystemPromptSetting } from "./system-prompt.js";
import type { OpenAck, ReplayAck, ReplayPage, WorkerStats } from "./worker-events.js";

/** Commands the main thread calls on a session worker (comlink). */
export interface SessionWorkerApi {
  /**
   * Binds a standby worker to its one session; every other command waits for it. gateway: the session's port to the
   * host's model gateway (src/protocol/model-gateway.ts), where the host has one.
   */
  start(init: WorkerInit, gateway?: MessagePort): Promise<void>;
  /** The host restarted its model gateway: requests from now on go through this port. */
  reconnectGateway(gateway: MessagePort): Promise<void>;
  /** Answers once start has restored the session (log read and repaired, loop built), or why it could not. */
  open(): Promise<OpenAck>;
  setMode(mode: SessionModeId): Promise<void>;
  /** The worker's own figures for `_host/status`. */
  stats(): Promise<WorkerStats>;
  /** The host restarted its spawner: commands from now on go through this grant. */
  regrant(grant: SpawnerGrant): Promise<void>;
  /**
   * Another session's workspace now lies inside this one: the file tools refuse it from now on, as bash's sandbox
   * masks it (the worker's init listed only the workspaces there were when it started).
   */
  hide(path: string): Promise<void>;
  setModel(model: ModelConfig): Promise<void>;
  /** A client gave the session a new system prompt (load or resume of a live session): journaled, used from now on. */
  setSystemPrompt(systemPrompt: SystemPromptSetting): Promise<void>;
  /** Journals its tree's budget (_host/set_budget): a restore tells the model gateway the last one. */
  setBudget(budget: Budget): Promise<void>;
  /**
   * Posts the session's history as events (turnId "replay"), then a turn_end with turnId "replay" that marks the
   * end (events and answers travel on different ports, so the main thread waits for the marker, not the answer).
   * A "records" session compacted since its worker opened asks first for the older records it no longer holds.
   */
  replay(older?: ReplayedRecords): Promise<ReplayAck>;
  /**
   * One page of the history an attached client asked for, as the answer (not on the events port: a turn running beside
   * it does not wait for that client): the events numbered from fromSeq on, after the first `skip` of them, at least
   * one and about maxBytes of them. A "records" session compacted since its worker opened asks first for older records.
   */
  replayPage(older: ReplayedRecords | undefined, fromSeq: number, skip: number, maxBytes: number): Promise<ReplayPage>;
  /** Ends background tasks and flushes state; the main thread terminates the thread afterwards. */
  dispose(): Promise<void>;
}
