// HostClient: what a parent orchestrator uses to drive an acp-session-host over stdio, on the SDK's client side.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  client,
  ndJsonStream,
  type ClientConnection,
  type ContentBlock,
  type InitializeResponse,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type NewSessionResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type Stream,
  type StopReason,
  type ToolCallStatus,
} from "@agentclientprotocol/sdk";

/** How permission requests are answered: allow once, reject once, or a callback of yours. */
export type PermissionPolicy =
  | "allow"
  | "allow_always"
  | "deny"
  | ((request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>);

export interface SpawnOptions {
  /** Flags for the host, e.g. ["--allow-fault-injection"]. */
  hostArgs?: string[];
  /** Defaults to this package's own CLI run with the current node. */
  command?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Where the host's stderr (JSON logs) goes. Default: "ignore". */
  stderr?: "inherit" | "pipe" | "ignore";
  permission?: PermissionPolicy;
}

export interface AttachOptions {
  permission?: PermissionPolicy;
}

export interface ToolCallSummary {
  toolCallId: string;
  title: string;
  kind: string | null | undefined;
  status: ToolCallStatus | null | undefined;
  /** Output deltas as they arrived, concatenated. */
  output: string;
  rawOutput: unknown;
}

export interface PromptResult {
  /** The agent's message chunks, concatenated. */
  text: string;
  stopReason: StopReason;
  toolCalls: ToolCallSummary[];
  usage: { used: number; size: number } | null;
  /** Every update of this turn, in order. */
  updates: SessionUpdate[];
}

export interface PromptOptions {
  onUpdate?: (update: SessionUpdate) => void;
}

export interface NewSessionOptions {
  mode?: string;
}

// The compiled CLI, whether this module runs compiled (dist/src/client) or from source under a test runner (src/client).
const CLI = fileURLToPath(new URL(import.meta.url.includes("/dist/") ? "../cli.js" : "../../dist/src/cli.js", import.meta.url));

export class HostClient {
  readonly child: ChildProcess | null;
  readonly initializeResponse: InitializeResponse;
  readonly #connection: ClientConnection;
  readonly #listeners = new Map<string, Set<(update: SessionUpdate) => void>>();
  readonly #anyListeners = new Set<(notification: SessionNotification) => void>();
  readonly #holder: Holder;

  private constructor(child: ChildProcess | null, connection: ClientConnection, init: InitializeResponse, holder: Holder) {
    this.child = child;
    this.#connection = connection;
    this.initializeResponse = init;
    this.#holder = holder;
    holder.client = this;
  }

  /** Spawns a host process and initializes the connection. */
  static async spawn(options: SpawnOptions = {}): Promise<HostClient> {
    const command = options.command ?? process.execPath;
    const args = options.args ?? [CLI, "serve", ...(options.hostArgs ?? [])];
    const child = spawn(command, args, { stdio: ["pipe", "pipe", options.stderr ?? "ignore"], env: options.env ?? process.env });
    await once(child, "spawn");
    const stream = ndJsonStream(Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>);
    return HostClient.#open(child, stream, options.permission ?? "deny");
  }

  /** Attaches to a host already reachable over a stream pair. */
  static async attach(stream: Stream, options: AttachOptions = {}): Promise<HostClient> {
    return HostClient.#open(null, stream, options.permission ?? "deny");
  }

  static async #open(child: ChildProcess | null, stream: Stream, permission: PermissionPolicy): Promise<HostClient> {
    const holder: Holder = { client: null, permission };
    const app = client({ name: "acp-session-host-client" })
      .onNotification("session/update", ({ params }) => holder.client?.dispatch(params))
      .onRequest("session/request_permission", ({ params }) => answerPermission(holder.permission, params));
    const connection = app.connect(stream);
    const init = await connection.agent.request("initialize", {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "acp-session-host-client", version: "0.1.0" },
    });
    return new HostClient(child, connection, init, holder);
  }

  /** Replaces the policy that answers session/request_permission. */
  set permission(policy: PermissionPolicy) {
    this.#holder.permission = policy;
  }

  async newSession(cwd: string, options: NewSessionOptions = {}): Promise<NewSessionResponse> {
    const response = await this.#connection.agent.request("session/new", { cwd, mcpServers: [] });
    if (options.mode && options.mode !== response.modes?.currentModeId) await this.setMode(response.sessionId, options.mode);
    return response;
  }

  /** Sends one prompt and gathers its turn: the answer's text, stop reason, tool calls, usage and updates. */
  async prompt(sessionId: string, content: string | ContentBlock[], options: PromptOptions = {}): Promise<PromptResult> {
    const prompt: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const updates: SessionUpdate[] = [];
    const collect = (update: SessionUpdate) => {
      updates.push(update);
      options.onUpdate?.(update);
    };
    const off = this.onSessionUpdate(sessionId, collect);
    try {
      const response = await this.#connection.agent.request("session/prompt", { sessionId, prompt });
      return summarize(updates, response.stopReason);
    } finally {
      off();
    }
  }

  async cancel(sessionId: string): Promise<void> {
    await this.#connection.agent.notify("session/cancel", { sessionId });
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.#connection.agent.request("session/set_mode", { sessionId, modeId });
  }

  async setConfigOption(sessionId: string, configId: string, value: string): Promise<unknown> {
    return this.#connection.agent.request("session/set_config_option", { sessionId, configId, value });
  }

  async load(sessionId: string, cwd: string, options: PromptOptions = {}): Promise<SessionUpdate[]> {
    const updates: SessionUpdate[] = [];
    const off = this.onSessionUpdate(sessionId, (update) => {
      updates.push(update);
      options.onUpdate?.(update);
    });
    try {
      await this.#connection.agent.request("session/load", { sessionId, cwd, mcpServers: [] });
      return updates;
    } finally {
      off();
    }
  }

  async resume(sessionId: string, cwd: string): Promise<void> {
    await this.#connection.agent.request("session/resume", { sessionId, cwd, mcpServers: [] });
  }

  async list(params: ListSessionsRequest = {}): Promise<ListSessionsResponse> {
    return this.#connection.agent.request("session/list", params);
  }

  async close(sessionId: string): Promise<void> {
    await this.#connection.agent.request("session/close", { sessionId });
  }

  async delete(sessionId: string): Promise<void> {
    await this.#connection.agent.request("session/delete", { sessionId });
  }

  /** A raw request, for methods this class does not wrap. */
  request<T = unknown>(method: string, params?: unknown): Promise<T> {
    return this.#connection.agent.request<T>(method, params);
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
    const child = this.child;
    if (!child) {
      this.#connection.close();
      return null;
    }
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
    child.stdin?.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const [code] = await exited;
    clearTimeout(timer);
    this.#connection.close();
    return code;
  }

  /** @internal Routes one session/update notification to its listeners. */
  dispatch(notification: SessionNotification): void {
    for (const listener of this.#anyListeners) listener(notification);
    for (const listener of this.#listeners.get(notification.sessionId) ?? []) listener(notification.update);
  }
}

interface Holder {
  client: HostClient | null;
  permission: PermissionPolicy;
}

async function answerPermission(policy: PermissionPolicy, request: RequestPermissionRequest): Promise<RequestPermissionResponse> {
  if (typeof policy === "function") return policy(request);
  const kind = policy === "allow" ? "allow_once" : policy === "allow_always" ? "allow_always" : "reject_once";
  const option = request.options.find((candidate) => candidate.kind === kind);
  return option ? { outcome: { outcome: "selected", optionId: option.optionId } } : { outcome: { outcome: "cancelled" } };
}

function summarize(updates: SessionUpdate[], stopReason: StopReason): PromptResult {
  let text = "";
  let usage: PromptResult["usage"] = null;
  const toolCalls = new Map<string, ToolCallSummary>();
  for (const update of updates) {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") text += update.content.text;
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
        else for (const item of update.content ?? []) if (item.type === "content" && item.content.type === "text") call.output += item.content.text;
        break;
      }
      case "usage_update":
        usage = { used: update.used, size: update.size };
        break;
    }
  }
  return { text, stopReason, toolCalls: [...toolCalls.values()], usage, updates };
}
