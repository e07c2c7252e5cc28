// HostClient: what a parent orchestrator uses to drive an acp-session-host (spawned on stdio, or reached over
// Streamable HTTP or WebSocket), on the SDK's client side.
/**
 * The client library of acp-session-host.
 *
 * @example
 * ```ts
 * import { HostClient } from "acp-session-host";
 *
 * const host = await HostClient.spawn({ hostArgs: ["--max-sessions", "64"], permission: "deny" });
 * const { sessionId } = await host.newSession(process.cwd(), { mode: "read-only" });
 * const turn = await host.prompt(sessionId, "hello", { onUpdate: (update) => console.error(update.sessionUpdate) });
 * console.log(turn.stopReason, turn.text); // end_turn You said: hello
 * await host.dispose();
 * ```
 * @packageDocumentation
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createHttpStream } from "@agentclientprotocol/sdk/experimental/http-client";
import { createWebSocketStream } from "@agentclientprotocol/sdk/experimental/ws-client";
import { WebSocket } from "ws";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import {
  client,
  ndJsonStream,
  type ClientCapabilities,
  type ClientConnection,
  type ContentBlock,
  type ForkSessionResponse,
  type InitializeResponse,
  type McpServer,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type NewSessionResponse,
  type PromptResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionStatus,
  type SessionUpdate,
  type SetSessionTitleResponse,
  type Stream,
  type StopReason,
  type SystemPrompt,
  type ToolCallStatus,
} from "@agentclientprotocol/sdk/unstable";
import { ChildSession, type SubagentUpdate } from "./child-session.js";
import { HOST_STATS_METHOD, HostStats, type HostStatsRequest } from "../protocol/host-stats.js";
import { HOST_STATUS_METHOD, HostStatus, type HostStatusRequest } from "../protocol/host-status.js";
import { MCP_STATUS_METHOD, McpStatusNotification } from "../protocol/mcp-status.js";
import {
  ATTACH_METHOD,
  AttachResponse,
  DETACH_METHOD,
  DETACHED_NOTIFICATION,
  DetachedNotification,
  PROMPT_ID_META_KEY,
  TURN_ENDED_NOTIFICATION,
  TurnEndedNotification,
  type AttachRole,
  type ReplayFrom,
} from "../protocol/attach.js";
import { EventCursors } from "./event-cursors.js";

/**
 * How the client answers the host's `session/request_permission`:
 * - `"allow"`: picks the `allow_once` option;
 * - `"allow_always"`: picks `allow_always` (the session stops asking for that tool);
 * - `"deny"`: picks `reject_once` (the default);
 * - a callback: your answer, e.g. `{ outcome: { outcome: "selected", optionId: "allow_once" } }`.
 *
 * When the wanted option is not offered, the request is answered `cancelled`.
 */
export type PermissionPolicy =
  | "allow"
  | "allow_always"
  | "deny"
  | ((request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>);

/**
 * What the client tells the host it understands (initialize's clientCapabilities). `subagents` (default true): child
 * sessions are announced with subagent_update and their updates and permission requests reach this client under their
 * own ids ({@link HostClient.children}); without it a child runs unseen and its permission requests are refused.
 * `compaction` (default false): context compactions come as compaction_update and compaction_summary_chunk rather
 * than as a thought. `notices` (default false): live notices (a model request waiting on its provider) are sent to it.
 */
export interface Understands {
  subagents?: boolean;
  compaction?: boolean;
  notices?: boolean;
}

/** How {@link HostClient.spawn} starts the host process. */
export interface SpawnOptions extends Understands {
  /** Flags for the host, e.g. ["--allow-fault-injection"] (see `acp-session-host --help`). */
  hostArgs?: string[];
  /** The executable to run. Default: the current node running this package's own CLI (`serve`). */
  command?: string;
  /** Its arguments; when set, `hostArgs` is ignored. Lets you drive any ACP agent on stdio. */
  args?: string[];
  /** The host's environment. Default: this process's. */
  env?: NodeJS.ProcessEnv;
  /**
   * Where the host's stderr (JSON logs) goes. Default: "ignore". With "pipe", read `client.child.stderr`. A function
   * is called with each line from the host's start on, so what a host that exits before answering said is not lost.
   */
  stderr?: "inherit" | "pipe" | "ignore" | ((line: string) => void);
  /** Default: "deny". */
  permission?: PermissionPolicy;
}

/** How {@link HostClient.attach} talks to a host it did not start. */
export interface AttachOptions extends Understands {
  /** Default: "deny". */
  permission?: PermissionPolicy;
}

/** How {@link HostClient.connect} reaches a host listening with `--listen`. */
export interface ConnectOptions extends Understands {
  /** The bearer token (from `acp-session-host token add`); needed when the host has a tokens file. */
  token?: string;
  /** Default: "deny". */
  permission?: PermissionPolicy;
  /** Extra headers on every request (HTTP) or on the upgrade (WebSocket). */
  headers?: Record<string, string>;
  /**
   * When the connection drops, connect again (with backoff; through a proxy, so to a live host) and resume every
   * session this client opened, so each session id keeps working. A prompt in flight at the drop rejects with
   * {@link ConnectionLost}; the session's log says how that turn ended (session/load replays it). `true` takes the
   * defaults.
   */
  reconnect?: boolean | ReconnectOptions;
  /** Sees every message of each connection (a reconnection's too) on its way: e.g. a log of the traffic, or a check. */
  tap?: (stream: Stream) => Stream;
}

/** How {@link HostClient.connect} reconnects. */
export interface ReconnectOptions {
  /** The first wait before connecting again, doubled after each failure (default 100 ms). */
  initialDelayMs?: number;
  /** The longest wait between attempts (default 5000 ms). */
  maxDelayMs?: number;
  /** Gives up after this long without a connection (default: never). */
  giveUpAfterMs?: number;
  /** Told of each reconnection (e.g. for a log line). */
  onReconnect?: (event: {
    attempt: number;
    resumed: string[];
    failed: Array<{ sessionId: string; error: Error }>;
  }) => void;
}

/** A request that was on its way when the connection to the host dropped; `sessionId` names its session, if any. */
export class ConnectionLost extends Error {
  readonly sessionId: string | null;
  constructor(method: string, sessionId: string | null, cause: unknown) {
    super(
      `${method}${sessionId ? ` of session ${sessionId}` : ""} was in flight when the connection to the host dropped; the session's log says how it ended`,
      { cause },
    );
    this.name = "ConnectionLost";
    this.sessionId = sessionId;
  }
}

/** One tool call of a turn, folded from its `tool_call` and `tool_call_update` notifications. */
export interface ToolCallSummary {
  toolCallId: string;
  title: string;
  kind: string | null | undefined;
  /** The last status reported: "completed" or "failed" once the call has ended. */
  status: ToolCallStatus | null | undefined;
  /** Output deltas as they arrived, concatenated. */
  output: string;
  /** The final result, when the host reported one. */
  rawOutput: unknown;
}

/** One prompt turn, gathered. A turn that fails (worker crash, model error) rejects with the JSON-RPC error instead. */
export interface PromptResult {
  /** The agent's messages, each one's text blocks concatenated, a blank line between two messages. */
  text: string;
  /** Why the turn ended: "end_turn", "cancelled", "max_turn_requests", … */
  stopReason: StopReason;
  /** The turn's tool calls in the order they started. */
  toolCalls: ToolCallSummary[];
  /** The last context usage the host reported in this turn, if any. */
  usage: { used: number; size: number } | null;
  /** Every update of this turn, in order. */
  updates: SessionUpdate[];
  /** The child sessions the turn ran (spawn_agent), in the order they were announced. */
  children: ChildSession[];
}

/** Options of {@link HostClient.prompt} (and of {@link HostClient.load}, which uses `onUpdate` only). */
export interface PromptOptions {
  /** Called with each of the session's updates as it arrives, before the prompt settles. */
  onUpdate?: (update: SessionUpdate) => void;
  /** Aborting sends `session/cancel`; the prompt then settles with stop reason "cancelled". */
  signal?: AbortSignal;
  /** The request's _meta: e.g. W3C Trace Context (`traceparent`, `tracestate`) joining the turn to your trace. */
  meta?: Record<string, unknown>;
}

/**
 * A system prompt for a session (sessionCapabilities.systemPrompt): text to add to the host's instructions, or ACP's
 * SystemPrompt (`mode` "append" or "override", text content).
 */
export type SystemPromptOption = string | SystemPrompt;

/** Options of {@link HostClient.newSession}. */
export interface NewSessionOptions {
  /** A mode id ("ask", "auto", "read-only", "full-access"); set right after creation when it is not the default. */
  mode?: string;
  /** The session's MCP servers (stdio or http); the host connects them in the background (see {@link HostClient.onMcpStatus}). */
  mcpServers?: McpServer[];
  systemPrompt?: SystemPromptOption;
}

/** Options of {@link HostClient.load} and {@link HostClient.resume}. */
export interface OpenOptions {
  /** The MCP servers the session runs with from now on (default: none). */
  mcpServers?: McpServer[];
  /** Replaces the session's system prompt (default: it keeps its own). */
  systemPrompt?: SystemPromptOption;
}

/** Options of {@link HostClient.fork}. */
export interface ForkOptions {
  /** The fork's MCP servers (default: none). */
  mcpServers?: McpServer[];
  /** The fork's system prompt (default: the source's). */
  systemPrompt?: SystemPromptOption;
}

// The compiled CLI, whether this module runs compiled (dist/src/client) or from source under a test runner (src/client).
const CLI = fileURLToPath(
  new URL(import.meta.url.includes("/dist/") ? "../cli.js" : "../../dist/src/cli.js", import.meta.url),
);

/**
 * A connection to one acp-session-host (or any ACP agent on stdio), from the orchestrator's side.
 * Many sessions and many concurrent prompts share it; notifications are routed to each session's listeners.
 */
export class HostClient {
  /** The host process when this client spawned it; null when attached to streams. */
  readonly child: ChildProcess | null;
  #initializeResponse: InitializeResponse;
  #connection: ClientConnection;
  readonly #listeners = new Map<string, Set<(update: SessionUpdate) => void>>();
  readonly #anyListeners = new Set<(notification: SessionNotification) => void>();
  readonly #mcpListeners = new Set<(status: McpStatusNotification) => void>();
  /** Child sessions announced on this connection, by id. */
  readonly #children = new Map<string, ChildSession>();
  readonly #childListeners = new Set<(child: ChildSession) => void>();
  readonly #holder: Holder;
  /** Connects again (HostClient.connect with reconnect); null: a dropped connection is the end. */
  readonly #redial: Redial | null;
  /** The sessions this client opened (new, load, resume): resumed after a reconnection. */
  readonly #opened = new Map<string, { cwd: string; mcpServers: McpServer[] }>();
  /** What this client has applied of each session (event ids): nothing is applied twice. */
  readonly #cursors = new EventCursors();
  /** The sessions this client is attached to (session/attach), with the host's last answer. */
  readonly #attached = new Map<string, AttachResponse>();
  readonly #turnEndListeners = new Set<(ended: TurnEndedNotification) => void>();
  readonly #detachedListeners = new Set<(notice: DetachedNotification) => void>();
  /** Sessions whose session/load is replaying them to this client. */
  readonly #loading = new Set<string>();
  /** Settles once the client is connected (at once, unless a reconnection is under way). */
  #ready: Promise<void> = Promise.resolve();
  #ended = false;
  readonly #end: { promise: Promise<void>; resolve(): void };

  private constructor(child: ChildProcess | null, link: Link, holder: Holder, redial: Redial | null = null) {
    this.child = child;
    this.#connection = link.connection;
    this.#initializeResponse = link.init;
    this.#holder = holder;
    this.#redial = redial;
    let resolve!: () => void;
    this.#end = { promise: new Promise<void>((done) => (resolve = done)), resolve };
    holder.client = this;
    this.#watch(link.connection);
  }

  /** The host's answer to `initialize` (capabilities, agent info); after a reconnection, the new host's. */
  get initializeResponse(): InitializeResponse {
    return this.#initializeResponse;
  }

  /**
   * Spawns a host process and initializes the connection. Rejects (with "ACP connection closed") when the host exits
   * before answering, e.g. on a bad flag.
   */
  static async spawn(options: SpawnOptions = {}): Promise<HostClient> {
    const command = options.command ?? process.execPath;
    const args = options.args ?? [CLI, "serve", ...(options.hostArgs ?? [])];
    // glibc gives each thread that allocates an arena of its own (up to 8 per core) and keeps what is freed in it: a
    // host that makes and ends worker threads grows by them (docs/performance.md, "Measured choices in the code").
    const env = { MALLOC_ARENA_MAX: "2", ...(options.env ?? process.env) };
    const stderr = options.stderr ?? "ignore";
    const child = spawn(command, args, {
      stdio: ["pipe", "pipe", typeof stderr === "function" ? "pipe" : stderr],
      env,
    });
    if (typeof stderr === "function") createInterface({ input: child.stderr!, crlfDelay: Infinity }).on("line", stderr);
    await once(child, "spawn");
    const stream = ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    );
    return HostClient.#open(child, stream, options.permission ?? "deny", options);
  }

  /**
   * Connects to a host serving `--listen`: Streamable HTTP for an `http(s)://…/acp` URL, WebSocket for `ws(s)://`.
   * Rejects when the host refuses (401 without a valid token, 503 at --max-connections) or cannot be reached.
   */
  static async connect(url: string, options: ConnectOptions = {}): Promise<HostClient> {
    const headers = { ...options.headers, ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}) };
    const scheme = new URL(url).protocol;
    if (!["http:", "https:", "ws:", "wss:"].includes(scheme))
      throw new TypeError(`HostClient.connect: unsupported URL scheme ${scheme} (use http, https, ws or wss)`);
    const tap = options.tap ?? ((stream: Stream) => stream);
    const dial = (): Stream =>
      tap(
        scheme === "http:" || scheme === "https:"
          ? createHttpStream(url, { headers })
          : createWebSocketStream(url, { headers, WebSocket }),
      );
    const holder: Holder = {
      client: null,
      permission: options.permission ?? "deny",
      capabilities: clientCapabilities(options),
    };
    const reconnect = options.reconnect === true ? {} : options.reconnect || null;
    const link = await HostClient.#link(dial(), holder);
    return new HostClient(null, link, holder, reconnect ? { dial, options: reconnect } : null);
  }

  /** Attaches to a host already reachable over a stream pair. */
  static async attach(stream: Stream, options: AttachOptions = {}): Promise<HostClient> {
    return HostClient.#open(null, stream, options.permission ?? "deny", options);
  }

  static async #open(
    child: ChildProcess | null,
    stream: Stream,
    permission: PermissionPolicy,
    understands: Understands,
  ): Promise<HostClient> {
    const holder: Holder = { client: null, permission, capabilities: clientCapabilities(understands) };
    return new HostClient(child, await HostClient.#link(stream, holder), holder);
  }

  /** An initialized connection over a stream; notifications and permission requests go to the holder's client. */
  static async #link(stream: Stream, holder: Holder): Promise<Link> {
    const app = client({ name: "acp-session-host-client" })
      .onNotification("session/update", ({ params }) => holder.client?.dispatch(params))
      .onNotification(MCP_STATUS_METHOD, McpStatusNotification, ({ params }) =>
        holder.client?.dispatchMcpStatus(params),
      )
      .onNotification(TURN_ENDED_NOTIFICATION, TurnEndedNotification, ({ params }) =>
        holder.client?.dispatchTurnEnded(params),
      )
      .onNotification(DETACHED_NOTIFICATION, DetachedNotification, ({ params }) =>
        holder.client?.dispatchDetached(params),
      )
      .onRequest("session/request_permission", ({ params }) => answerPermission(holder.permission, params));
    const connection = app.connect(stream);
    try {
      const init = await connection.agent.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: holder.capabilities,
        clientInfo: { name: "acp-session-host-client", version: "0.1.0" },
      });
      return { connection, init };
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  /** The policy that answers session/request_permission; assign to replace it (applies to later requests). */
  get permission(): PermissionPolicy {
    return this.#holder.permission;
  }

  set permission(policy: PermissionPolicy) {
    this.#holder.permission = policy;
  }

  /** The host's pid when this client spawned it. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Resolves when the client is done with the host: its connection closed (host exit, {@link dispose}) and, with
   * reconnect, once it has given up reconnecting.
   */
  get closed(): Promise<void> {
    return this.#end.promise;
  }

  /** Creates a session whose tools work in `cwd` (an existing absolute directory), optionally in another mode. */
  async newSession(cwd: string, options: NewSessionOptions = {}): Promise<NewSessionResponse> {
    const mcpServers = options.mcpServers ?? [];
    const response = await this.#request<NewSessionResponse>("session/new", {
      cwd,
      mcpServers,
      ...systemPromptParam(options.systemPrompt),
    });
    this.#opened.set(response.sessionId, { cwd, mcpServers });
    await this.#attachForReconnect(response.sessionId);
    if (options.mode && options.mode !== response.modes?.currentModeId)
      await this.setMode(response.sessionId, options.mode);
    return response;
  }

  /**
   * Sends one prompt and gathers its turn: the answer's text, stop reason, tool calls, usage and updates.
   * One prompt at a time per session; prompts of different sessions may run concurrently.
   */
  async prompt(
    sessionId: string,
    content: string | ContentBlock[],
    options: PromptOptions = {},
  ): Promise<PromptResult> {
    const prompt: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const updates: SessionUpdate[] = [];
    const collect = (update: SessionUpdate) => {
      updates.push(update);
      options.onUpdate?.(update);
    };
    const off = this.onSessionUpdate(sessionId, collect);
    const onAbort = () => void this.cancel(sessionId).catch(() => {});
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      // Attached (with reconnect), the prompt carries an id of its own: a reconnection learns whether the host got it.
      const promptId = this.#attached.has(sessionId) ? { [PROMPT_ID_META_KEY]: randomUUID() } : null;
      const meta = options.meta || promptId ? { _meta: { ...options.meta, ...promptId } } : {};
      const params = { sessionId, prompt, ...meta };
      const sent = this.#sendPrompt(params, promptId?.[PROMPT_ID_META_KEY] ?? null);
      if (options.signal?.aborted) onAbort();
      const stopReason = await sent;
      return { ...summarize(updates, stopReason), children: this.#announced(updates) };
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      off();
    }
  }

  /** Asks the session to stop its turn (notification); the pending prompt settles with stop reason "cancelled". */
  async cancel(sessionId: string): Promise<void> {
    await this.#ready;
    await this.#connection.agent.notify("session/cancel", { sessionId });
  }

  /** Switches the session's mode; the host answers an error for an unknown or unavailable mode. */
  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.#request("session/set_mode", { sessionId, modeId }, sessionId);
  }

  /** Sets one of the session's config options (where the host offers them). */
  async setConfigOption(sessionId: string, configId: string, value: string): Promise<unknown> {
    return this.#request("session/set_config_option", { sessionId, configId, value }, sessionId);
  }

  /** `session/load`: reopens a stored session; returns the history the host replayed as updates. */
  async load(sessionId: string, cwd: string, options: PromptOptions & OpenOptions = {}): Promise<SessionUpdate[]> {
    const updates: SessionUpdate[] = [];
    const off = this.onSessionUpdate(sessionId, (update) => {
      updates.push(update);
      options.onUpdate?.(update);
    });
    this.#loading.add(sessionId);
    try {
      const mcpServers = options.mcpServers ?? [];
      await this.#request(
        "session/load",
        { sessionId, cwd, mcpServers, ...systemPromptParam(options.systemPrompt) },
        sessionId,
      );
      this.#opened.set(sessionId, { cwd, mcpServers });
      await this.#attachForReconnect(sessionId);
      return updates;
    } finally {
      this.#loading.delete(sessionId);
      off();
    }
  }

  /** `session/resume`: reopens a stored session without replaying its history. */
  async resume(sessionId: string, cwd: string, options: OpenOptions = {}): Promise<void> {
    const mcpServers = options.mcpServers ?? [];
    await this.#request(
      "session/resume",
      { sessionId, cwd, mcpServers, ...systemPromptParam(options.systemPrompt) },
      sessionId,
    );
    this.#opened.set(sessionId, { cwd, mcpServers });
    await this.#attachForReconnect(sessionId);
  }

  /**
   * `session/fork`: a new session whose history is `sessionId`'s up to its last ended turn (a turn in flight there is
   * not waited for), working in `cwd`; the source is left as it was. The fork is open on this connection.
   */
  async fork(sessionId: string, cwd: string, options: ForkOptions = {}): Promise<ForkSessionResponse> {
    const mcpServers = options.mcpServers ?? [];
    const response = await this.#request<ForkSessionResponse>(
      "session/fork",
      { sessionId, cwd, mcpServers, ...systemPromptParam(options.systemPrompt) },
      sessionId,
    );
    this.#opened.set(response.sessionId, { cwd, mcpServers });
    return response;
  }

  /** `session/set_title`: stores the title (the host may shorten it) and returns it as stored. */
  async setTitle(sessionId: string, title: string): Promise<string> {
    return (await this.#request<SetSessionTitleResponse>("session/set_title", { sessionId, title }, sessionId)).title;
  }

  /** `session/archive`: ends the session's work as `close` would and hides it from the default {@link list}. */
  async archive(sessionId: string): Promise<void> {
    this.#opened.delete(sessionId);
    await this.#request("session/archive", { sessionId }, sessionId);
  }

  /** `session/unarchive`: back in the default {@link list}; nothing is loaded. */
  async unarchive(sessionId: string): Promise<void> {
    await this.#request("session/unarchive", { sessionId }, sessionId);
  }

  /** The child sessions announced on this connection (spawn_agent), all of them or one parent's. */
  children(parentSessionId?: string): ChildSession[] {
    return [...this.#children.values()].filter(
      (child) => parentSessionId === undefined || child.parentSessionId === parentSessionId,
    );
  }

  /** Told of each child session when it is first announced; returns the function that stops listening. */
  onChild(listener: (child: ChildSession) => void): () => void {
    this.#childListeners.add(listener);
    return () => void this.#childListeners.delete(listener);
  }

  /** `session/list`: the sessions the host knows (live and stored), paginated with `cursor`. */
  async list(params: ListSessionsRequest = {}): Promise<ListSessionsResponse> {
    return this.#request("session/list", params);
  }

  /** `session/close`: ends a live session and frees its worker; a stored session stays loadable. */
  async close(sessionId: string): Promise<void> {
    this.#opened.delete(sessionId);
    await this.#request("session/close", { sessionId }, sessionId);
  }

  /** `session/delete`: ends the session if live and removes what the host stored of it. */
  async delete(sessionId: string): Promise<void> {
    this.#opened.delete(sessionId);
    await this.#request("session/delete", { sessionId }, sessionId);
  }

  /**
   * `status(sessionId)`: ACP's `session/status`, "open" (the host has the session in memory) or "saved", with no side
   * effect; an unknown session rejects with -32002. `status(request?)`: the host's `_host/status`, its figures and one
   * page of session rows (pass `cursor: nextCursor` for the next).
   */
  async status(sessionId: string): Promise<SessionStatus>;
  async status(request?: HostStatusRequest): Promise<HostStatus>;
  async status(request: string | HostStatusRequest = {}): Promise<SessionStatus | HostStatus> {
    if (typeof request === "string")
      return (await this.#request<{ status: SessionStatus }>("session/status", { sessionId: request }, request)).status;
    return HostStatus.parse(await this.#request(HOST_STATUS_METHOD, request ?? {}));
  }

  /**
   * The host's own `_host/stats` extension: main-thread event-loop lag, worker and process thread counts, session
   * counts and memory. `resetEventLoopDelay` starts a fresh lag window after this read.
   */
  async stats(request: HostStatsRequest = {}): Promise<HostStats> {
    return HostStats.parse(await this.#request(HOST_STATS_METHOD, request ?? {}));
  }

  /** A raw request, for methods this class does not wrap. */
  request<T = unknown>(method: string, params?: unknown): Promise<T> {
    return this.#request<T>(method, params);
  }

  /** Listens to the host's `_host/mcp_status` notifications (every session's); returns the function that stops listening. */
  onMcpStatus(listener: (status: McpStatusNotification) => void): () => void {
    this.#mcpListeners.add(listener);
    return () => void this.#mcpListeners.delete(listener);
  }

  /** @internal */
  dispatchMcpStatus(status: McpStatusNotification): void {
    for (const listener of this.#mcpListeners) listener(status);
  }

  /**
   * `session/attach` (unstable; the host advertises `sessionCapabilities.attach`): this client receives the session's
   * updates from now on, as an observer (it may only read) or a controller (it may do what the session's owner may),
   * after a replay from the start or after an event id when asked. Updates it has applied already are not applied
   * again.
   */
  async attach(
    sessionId: string,
    options: { role?: AttachRole; replayFrom?: ReplayFrom } = {},
  ): Promise<AttachResponse> {
    const params = {
      sessionId,
      role: options.role ?? "observer",
      ...(options.replayFrom ? { replayFrom: options.replayFrom } : {}),
    };
    const answer = AttachResponse.parse(await this.#request(ATTACH_METHOD, params, sessionId));
    this.#attached.set(sessionId, answer);
    if (!options.replayFrom) this.#cursors.attachedAfter(sessionId, answer.lastEventId);
    return answer;
  }

  /** `session/detach`: this client's updates of the session stop; the session and its turn go on. */
  async detach(sessionId: string): Promise<void> {
    const attached = this.#attached.get(sessionId);
    if (!attached) return;
    this.#attached.delete(sessionId);
    await this.#request(DETACH_METHOD, { sessionId, attachmentId: attached.attachmentId }, sessionId);
  }

  /** The id of the last update of the session this client applied (null: none). */
  lastEventId(sessionId: string): string | null {
    return this.#cursors.lastEventId(sessionId);
  }

  /** The session's updates as they come, until the signal aborts or the client is done. */
  async *updates(sessionId: string, signal?: AbortSignal): AsyncGenerator<SessionUpdate, void, undefined> {
    const queue: SessionUpdate[] = [];
    let wake: (() => void) | null = null;
    const off = this.onSessionUpdate(sessionId, (update) => {
      queue.push(update);
      wake?.();
    });
    const stop = () => wake?.();
    signal?.addEventListener("abort", stop, { once: true });
    void this.closed.then(stop);
    try {
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          continue;
        }
        if (signal?.aborted || this.#ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      off();
      signal?.removeEventListener("abort", stop);
    }
  }

  /** Listens to one session's updates; returns the function that stops listening. */
  onSessionUpdate(sessionId: string, listener: (update: SessionUpdate) => void): () => void {
    let set = this.#listeners.get(sessionId);
    if (!set) this.#listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.#listeners.delete(sessionId);
    };
  }

  /** Listens to every session/update notification. */
  onAnyUpdate(listener: (notification: SessionNotification) => void): () => void {
    this.#anyListeners.add(listener);
    return () => this.#anyListeners.delete(listener);
  }

  /** Ends the host cleanly: closes its stdin and waits for it to exit (SIGKILL after timeoutMs). */
  async dispose(timeoutMs = 5000): Promise<number | null> {
    this.#ended = true;
    this.#end.resolve();
    const child = this.child;
    if (!child) {
      this.#connection.close();
      return null;
    }
    if (child.exitCode !== null || child.signalCode !== null) {
      this.#connection.close();
      return child.exitCode;
    }
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const [code] = await exited;
    clearTimeout(timer);
    this.#connection.close();
    return code;
  }

  /** A request, once connected; one on its way when the connection drops rejects with ConnectionLost (with reconnect). */
  async #request<T>(method: string, params: unknown, sessionId: string | null = null): Promise<T> {
    await this.#ready;
    const connection = this.#connection;
    try {
      return await connection.agent.request<T>(method, params);
    } catch (error) {
      if (this.#redial && connection.signal.aborted && !this.#ended) throw new ConnectionLost(method, sessionId, error);
      throw error;
    }
  }

  #watch(connection: ClientConnection): void {
    void connection.closed.then(() => {
      if (connection !== this.#connection || this.#ended) return;
      if (!this.#redial) {
        this.#ended = true;
        this.#end.resolve();
        return;
      }
      this.#ready = this.#reconnect(this.#redial);
      // A request made meanwhile waits for the reconnection; when it gives up, that request rejects.
      this.#ready.catch(() => {});
    });
  }

  /** Connects again with backoff and resumes every session this client had opened. */
  async #reconnect(redial: Redial): Promise<void> {
    const { initialDelayMs = 100, maxDelayMs = 5000, giveUpAfterMs = Infinity, onReconnect } = redial.options;
    const started = performance.now();
    for (let attempt = 1, delayMs = initialDelayMs; ; attempt++, delayMs = Math.min(maxDelayMs, delayMs * 2)) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (this.#ended) throw new Error("the client was disposed");
      let link: Link;
      try {
        link = await HostClient.#link(redial.dial(), this.#holder);
      } catch (error) {
        if (performance.now() - started > giveUpAfterMs) {
          this.#ended = true;
          this.#end.resolve();
          throw new Error(`could not reconnect to the host: ${(error as Error).message}`, { cause: error });
        }
        continue;
      }
      this.#connection = link.connection;
      this.#initializeResponse = link.init;
      const opened = [...this.#opened];
      // A host that serves session/attach picks up after the last event this client applied; any other, resumed.
      const attach = supportsAttach(link.init);
      const outcomes = await Promise.allSettled(
        opened.map(([sessionId, { cwd, mcpServers }]) =>
          attach
            ? this.#reattach(link.connection, sessionId, this.#attached.get(sessionId)?.role ?? "controller")
            : link.connection.agent.request("session/resume", { sessionId, cwd, mcpServers }),
        ),
      );
      const failed = outcomes.flatMap((outcome, index) =>
        outcome.status === "rejected" ? [{ sessionId: opened[index]![0], error: outcome.reason as Error }] : [],
      );
      // The connection broke again while resuming: start over.
      if (link.connection.signal.aborted) continue;
      this.#watch(link.connection);
      onReconnect?.({
        attempt,
        resumed: opened.map(([id]) => id).filter((id) => !failed.some((f) => f.sessionId === id)),
        failed,
      });
      return;
    }
  }

  /** Listens to `_host/turn_ended` (of the sessions this client is attached to); returns the function that stops it. */
  onTurnEnded(listener: (ended: TurnEndedNotification) => void): () => void {
    this.#turnEndListeners.add(listener);
    return () => void this.#turnEndListeners.delete(listener);
  }

  /** @internal */
  dispatchTurnEnded(ended: TurnEndedNotification): void {
    for (const listener of this.#turnEndListeners) listener(ended);
  }

  /** Listens to the host ending this client's attachments (a client that fell behind, a session closed or moved). */
  onDetached(listener: (notice: DetachedNotification) => void): () => void {
    this.#detachedListeners.add(listener);
    return () => void this.#detachedListeners.delete(listener);
  }

  /**
   * @internal The host detached this client: one that fell behind attaches again after its last event (with
   * reconnect); the listeners are told of any other end.
   */
  dispatchDetached(notice: DetachedNotification): void {
    const attached = this.#attached.get(notice.sessionId);
    if (attached?.attachmentId !== notice.attachmentId) return;
    this.#attached.delete(notice.sessionId);
    if (this.#redial && notice.error.data.reason === "OBSERVER_TOO_SLOW") {
      void this.#reattach(this.#connection, notice.sessionId, attached.role).catch(() => {});
      return;
    }
    for (const listener of this.#detachedListeners) listener(notice);
  }

  /** With reconnect, the client attaches to each session it opens, so a reconnection can pick up after its last event. */
  async #attachForReconnect(sessionId: string): Promise<void> {
    if (!this.#redial || !supportsAttach(this.#initializeResponse)) return;
    await this.attach(sessionId, { role: "controller" });
  }

  /** Attaches again after the last event applied (from the start when the log no longer holds it). */
  async #reattach(connection: ClientConnection, sessionId: string, role: AttachRole): Promise<void> {
    const last = this.#cursors.lastEventId(sessionId);
    const ask = (replayFrom: ReplayFrom) =>
      connection.agent
        .request(ATTACH_METHOD, { sessionId, role, replayFrom })
        .then((answer) => AttachResponse.parse(answer));
    let answer: AttachResponse;
    try {
      answer = await ask(last ? { type: "after_event", eventId: last } : { type: "start" });
    } catch (error) {
      const reason = (error as { data?: { reason?: unknown } }).data?.reason;
      if (reason !== "CURSOR_GAP") throw error;
      answer = await ask({ type: "start" });
    }
    this.#attached.set(sessionId, answer);
  }

  /**
   * session/prompt; when the connection drops under it (attached, with reconnect): once re-attached, the host's answer
   * says whether it got the prompt, and its turn's end how it went; a prompt it never got is sent again.
   */
  async #sendPrompt(params: { sessionId: string }, promptId: string | null): Promise<StopReason> {
    const { sessionId } = params;
    for (;;) {
      // Listening before the connection can come back: the end may be told as soon as it has.
      const ended = promptId ? this.#turnEnd(sessionId, promptId) : null;
      try {
        const response = await this.#request<PromptResponse>("session/prompt", params, sessionId);
        return response.stopReason;
      } catch (error) {
        if (!(error instanceof ConnectionLost) || !ended) throw error;
        const before = this.#attached.get(sessionId)?.hostId;
        await this.#ready;
        const attached = this.#attached.get(sessionId);
        // Another host (or this one restarted) serves the session now: whether it got the prompt cannot be known.
        if (!attached || attached.hostId !== before) throw error;
        if (attached.promptId === promptId) {
          if (!attached.turnRunning) return stopReasonOf(sessionId, attached.lastStopReason ?? "error");
          return await ended.promise;
        }
      } finally {
        ended?.stop();
      }
    }
  }

  /** The end of the turn of the prompt promptId, as the host's notice tells it. */
  #turnEnd(sessionId: string, promptId: string): { promise: Promise<StopReason>; stop(): void } {
    let listener!: (ended: TurnEndedNotification) => void;
    const promise = new Promise<StopReason>((resolve, reject) => {
      listener = (ended) => {
        if (ended.sessionId !== sessionId || ended.promptId !== promptId) return;
        try {
          resolve(stopReasonOf(sessionId, ended.stopReason));
        } catch (error) {
          reject(error as Error);
        }
      };
    });
    promise.catch(() => {});
    this.#turnEndListeners.add(listener);
    return { promise, stop: () => this.#turnEndListeners.delete(listener) };
  }

  /** @internal Routes one session/update notification to its listeners. */
  dispatch(notification: SessionNotification): void {
    const { sessionId, update } = notification;
    // Seen already: dropped for a session this client is attached to (a re-attach's replay overlaps what it saw);
    // session/load's replay is the history asked for, seen before or not.
    const fresh = this.#cursors.admit(sessionId, update);
    if (!fresh && this.#attached.has(sessionId) && !this.#loading.has(sessionId)) return;
    if (update.sessionUpdate === "subagent_update") this.#subagent(sessionId, update);
    this.#children.get(sessionId)?.record(update);
    for (const listener of this.#anyListeners) listener(notification);
    for (const listener of this.#listeners.get(sessionId) ?? []) listener(update);
  }

  #subagent(parentSessionId: string, update: SubagentUpdate): void {
    const known = this.#children.get(update.sessionId);
    if (known) {
      known.patch(update);
      return;
    }
    const child = new ChildSession(this, parentSessionId, update);
    this.#children.set(child.sessionId, child);
    for (const listener of this.#childListeners) listener(child);
  }

  /** The children a turn's updates announced, in order. */
  #announced(updates: readonly SessionUpdate[]): ChildSession[] {
    const ids = new Set(
      updates.flatMap((update) => (update.sessionUpdate === "subagent_update" ? [update.sessionId] : [])),
    );
    return [...ids].flatMap((id) => this.#children.get(id) ?? []);
  }
}

/** A turn's end as the host told it to attached clients: "error" is a failed turn, whose error went with the connection. */
function stopReasonOf(sessionId: string, told: string): StopReason {
  if (told === "error")
    throw new Error(`the turn of session ${sessionId} failed (its error was lost with the connection)`);
  return told as StopReason;
}

function supportsAttach(init: InitializeResponse): boolean {
  const capabilities = init.agentCapabilities?.sessionCapabilities as Record<string, unknown> | undefined;
  return capabilities?.attach != null;
}

interface Holder {
  client: HostClient | null;
  permission: PermissionPolicy;
  capabilities: ClientCapabilities;
}

function clientCapabilities(understands: Understands): ClientCapabilities {
  return {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
    ...(understands.subagents !== false ? { subagents: {} } : {}),
    ...(understands.compaction === true || understands.notices === true
      ? {
          session: {
            ...(understands.compaction === true ? { compaction: {} } : {}),
            ...(understands.notices === true ? { notices: {} } : {}),
          },
        }
      : {}),
  };
}

function systemPromptParam(option: SystemPromptOption | undefined): { systemPrompt?: SystemPrompt } {
  if (option === undefined) return {};
  return {
    systemPrompt: typeof option === "string" ? { mode: "append", content: [{ type: "text", text: option }] } : option,
  };
}

interface Link {
  connection: ClientConnection;
  init: InitializeResponse;
}

interface Redial {
  dial(): Stream;
  options: ReconnectOptions;
}

async function answerPermission(
  policy: PermissionPolicy,
  request: RequestPermissionRequest,
): Promise<RequestPermissionResponse> {
  if (typeof policy === "function") return policy(request);
  const kind = policy === "allow" ? "allow_once" : policy === "allow_always" ? "allow_always" : "reject_once";
  const option = request.options.find((candidate) => candidate.kind === kind);
  return option
    ? { outcome: { outcome: "selected", optionId: option.optionId } }
    : { outcome: { outcome: "cancelled" } };
}

function summarize(updates: SessionUpdate[], stopReason: StopReason): Omit<PromptResult, "children"> {
  let text = "";
  let messageId: string | null | undefined;
  let usage: PromptResult["usage"] = null;
  const toolCalls = new Map<string, ToolCallSummary>();
  for (const update of updates) {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type !== "text") break;
        // A message's blocks run on; the next message starts after a blank line.
        if (text !== "" && update.messageId != null && messageId != null && update.messageId !== messageId)
          text += "\n\n";
        messageId = update.messageId ?? messageId;
        text += update.content.text;
        break;
      case "tool_call":
        toolCalls.set(update.toolCallId, {
          toolCallId: update.toolCallId,
          title: update.title,
          kind: update.kind,
          status: update.status,
          output: "",
          rawOutput: undefined,
        });
        break;
      case "tool_call_update": {
        const call = toolCalls.get(update.toolCallId);
        if (!call) break;
        if (update.status) call.status = update.status;
        if (update.rawOutput !== undefined) call.rawOutput = update.rawOutput;
        else
          for (const item of update.content ?? [])
            if (item.type === "content" && item.content.type === "text") call.output += item.content.text;
        break;
      }
      case "usage_update":
        usage = { used: update.used, size: update.size };
        break;
    }
  }
  return { text, stopReason, toolCalls: [...toolCalls.values()], usage, updates };
}
