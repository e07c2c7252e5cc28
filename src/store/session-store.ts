// Where sessions live and who may write them: the one interface the host uses, with two backends behind it.
//   dir/       the state dir (the default): each session worker appends to its own log file and fsyncs it at turn ends;
//              a lock file keeps a session to one host process.
//   postgres/  PostgreSQL, shared by a fleet of hosts: the host appends every session's records in group commits, and
//              a lease with an epoch per session fences out a host that lost it.
// Runs in the main thread. Nothing here reaches a worker but what workerLog() returns (the port's WorkerLog).
import type { Budget } from "../protocol/budget.js";
import type { ListSessionsResponse, RequestError } from "@agentclientprotocol/sdk/unstable";
import type { McpServerConfig } from "../protocol/mcp-servers.js";
import type { ModelConfig, SessionModeId, WorkerLog, SettingsFrom } from "../protocol/port.js";
import type { ForkPoint, LogHeader, ParentLink } from "../protocol/log/session-log.js";
import type { SystemPromptSetting } from "../protocol/system-prompt.js";

export interface NewSessionSettings {
  cwd: string;
  mode: SessionModeId;
  model: ModelConfig;
  mcpServers?: McpServerConfig[];
  /** The client's system prompt (header). */
  systemPrompt?: SystemPromptSetting;
  /** Its session tree's budget (header): a root's, from session/new or --session-budget-tokens. */
  budget?: Budget;
  /** A child session's parent (header): its mode and cwd were checked against the parent's before this is called. */
  parent?: ParentLink;
}

/** session/list's archive filter: not archived (the default), both, or archived only. */
export type ArchiveFilter = "exclude" | "include" | "only";

export interface ListOptions {
  cwd?: string | null;
  cursor?: string | null;
  pageSize: number;
  /** Only that tenant's sessions; null: every session. */
  tenant: string | null;
  archived: ArchiveFilter;
}

export interface ForkRequest {
  sourceId: string;
  /** The fork's working directory (absolute, an existing directory). */
  cwd: string;
  tenant: string | null;
  hostVersion: string;
  /** A system prompt the client gave for the fork; absent: the source's at the fork point. */
  systemPrompt?: SystemPromptSetting;
}

/** A fork as the store made it: a new session whose history is the source's up to its last ended turn. */
export interface ForkedSession {
  sessionId: string;
  forkOf: ForkPoint;
  /** The source's settings at the fork point, which are the fork's (in its header). */
  mode: SessionModeId;
  model: ModelConfig;
  systemPrompt: SystemPromptSetting | null;
  /** The title its history gives it (its first prompt's); null when it has none. */
  title: string | null;
  /** What the fork added to the store: its log's bytes, or its rows' entries' bytes. */
  bytesWritten: number;
}

/**
 * A session's records as its worker hands them to a store the host writes (postgres). The worker posts its appends
 * on the events port; the session passes them here in order, and answers a turn's end only once committed() has.
 */
export interface SessionWriter {
  /** Records (one JSON log entry each) from sequence number `from` on; replayable: whether session/load shows each. */
  append(from: number, lines: readonly string[], replayable: readonly boolean[]): void;
  /** What session/list shows of it, as of the records appended so far. */
  summary(turns: number, title: string | null): void;
  /** The session's base as of record `seq` (a compaction): a restore reads it and only the records from seq on. */
  snapshot(seq: number, base: string): void;
  /** Resolves once everything handed over so far is committed; rejects with the error the turn fails with. */
  committed(): Promise<void>;
  /** The records before `seq` that session/load shows (a compacted session's worker no longer holds them). */
  replayedBefore(seq: number): Promise<string[]>;
}

/** Why a store lets go of a session it had: another host took it over, or it was deleted elsewhere. */
export interface SessionLoss {
  sessionId: string;
  reason: string;
}

/** One committed record that session/load shows, with its sequence number in the session's log. */
export interface ShownRecord {
  seq: number;
  entry: string;
}

/**
 * A shared store's view of a session another host serves: a client attached here as an observer follows it from
 * the store, as its owner commits it.
 */
export interface SessionFeed {
  /** The live host other than this one that holds the session now; null: none (this host may take it). */
  holder(sessionId: string): Promise<string | null>;
  /** The session's committed records that session/load shows, after sequence number `afterSeq` (-1: all), in order. */
  shownAfter(sessionId: string, afterSeq: number): Promise<ShownRecord[]>;
  /** Calls back each time some host commits records of the session; returns the function that stops it. */
  watch(sessionId: string, onCommitted: () => void): () => void;
}

/** A host of a fleet sharing a store, as the store knows it (src/protocol/host-stats.ts carries it). */
export interface FleetHost {
  /** Its --host-id. */
  hostId: string;
  /** Sessions whose live lease it holds. */
  sessions: number;
}

export interface SessionStore {
  /** Names the store in logs and errors: `state dir /path`, `postgres postgres://user@host/db`. */
  readonly label: string;
  /** Starts what runs in the background (the list index, lease renewal). */
  start(): void;
  /** Mints a fresh id (never one deleted) and stores the session's header, owned by this host. */
  create(settings: NewSessionSettings, hostVersion: string, tenant: string | null): Promise<string>;
  /** A stored session's header: -32002 when there is none (or it was deleted), -32603 when it cannot be used. */
  readHeader(sessionId: string): Promise<LogHeader>;
  /**
   * Makes a fork of a stored session (which may be open, here or in another host, and mid-turn): a fresh id, a log
   * whose history is the source's up to its last ended turn, its header naming the source and that point; owned by
   * this host, durable as a new session is (the state dir flushes it right after). -32002 for an unknown source.
   */
  fork(request: ForkRequest): Promise<ForkedSession>;
  /** The title session/list shows for a stored session (one a client set, else its first prompt's; null: none). */
  title(sessionId: string): Promise<string | null>;
  /** Stores a title a client set (durable once it resolves); the first prompt's title never replaces it. */
  setTitle(sessionId: string, title: string): Promise<void>;
  /** Marks a stored session archived or not (durable once it resolves): the default session/list leaves it out. */
  setArchived(sessionId: string, archived: boolean): Promise<void>;
  /** The answer for a session id this store does not have (and, to a tenant, for another tenant's session). */
  unknownSession(sessionId: string): RequestError;
  /**
   * Takes the session for this host: refused while another live host has it. onWait is told, once, when the take
   * waits for the lease of a holder that does not answer (a dead host's) to run out.
   */
  lock(sessionId: string, onWait?: () => void): Promise<void>;
  /** Lets the session go (another host may take it at once). */
  unlock(sessionId: string): Promise<void>;
  /** Deletes a stored session for good; false when there was none. */
  remove(sessionId: string): Promise<boolean>;
  /** The session changed (opened, a turn ended, closed): the listing shows it as it is now. */
  touched(sessionId: string): void;
  /** Stored sessions, as far as the store knows without waiting (null: not yet known). */
  storedSessions(): Promise<number | null>;
  /**
   * The fleet's hosts as a shared store knows them: each host that holds a live lease, with how many sessions it
   * holds (this host among them when it holds one); null for a store of one host, or when the store did not answer.
   */
  fleetHosts(): Promise<FleetHost[] | null>;
  list(options: ListOptions): Promise<ListSessionsResponse>;
  /** What a session's worker opens its log from. */
  workerLog(sessionId: string, settingsFrom: SettingsFrom): Promise<WorkerLog>;
  /** Where the spawner keeps the session's full command outputs (null: in its own directory only). */
  outputDir(sessionId: string): string | null;
  /** The host's writer of the session's records, for a store the host writes; null where the worker writes its log. */
  writer(sessionId: string): SessionWriter | null;
  /** Sessions this host held and lost are told here (another host took one over, or it was deleted elsewhere). */
  onLoss(listener: (loss: SessionLoss) => void): void;
  /**
   * Another host asks for a session this host holds (a shared store): the handler lets it go here (resolves null once
   * it has: closed, its records committed, its hold given up) or says why not (a prompt in flight).
   */
  onTakeover(handler: (sessionId: string) => Promise<string | null>): void;
  /** Shared by a fleet of hosts: a host that ends lets its turns in flight end first, then gives its sessions up. */
  readonly shared: boolean;
  /** Where a shared store lets this host follow a session another host serves; null for a store of one host. */
  readonly feed: SessionFeed | null;
  /** Statements that committed session records (group commits); 0 where each worker writes its own log. */
  readonly commits: number;
  /** Whether the store answered its last request (/healthz answers 503 while it does not). */
  readonly reachable: boolean;
  /** Resolves once what this host wrote is durable (teardown). */
  flushed(): Promise<void>;
  /** Lets every session go and closes connections (teardown, after the sessions have closed). */
  close(): Promise<void>;
}
