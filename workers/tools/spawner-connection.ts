// This worker's channel to the spawner process: a unix socket opened on first use with the one-time token the main
// thread granted for this session. Everything the spawner sends is validated; output arrives here directly, never
// through the main thread.
import type { Socket } from "node:net";
import { jsonLine, readJsonLines } from "../../src/protocol/ndjson-lines.js";
import type { SpawnerGrant } from "../../src/protocol/port.js";
import { SpawnerReply, type TaskEnd } from "../../src/protocol/spawner-replies.js";
import type { SandboxKind, WorkerRequestInput } from "../../src/protocol/spawner-requests.js";

export interface RunRequest {
  command: string;
  sandbox: SandboxKind;
  timeoutMs: number | null;
  background: boolean;
  /** Foreground: output sent as it comes, and the end kept after it (see the run message). */
  forwardBytes?: number;
  tailBytes?: number;
}

export type RunOutcome =
  | { kind: "started"; taskId: string; outputFile: string }
  | { kind: "exited"; end: TaskEnd; totalBytes: number; outputFile: string; tail: string | null }
  | { kind: "error"; message: string };

export interface RunHandlers {
  onStarted?(outputFile: string): void;
  onOutput?(text: string): void;
  signal?: AbortSignal;
}

export interface StdioRequest {
  command: string;
  args: string[];
  env: Record<string, string>;
  sandbox: SandboxKind;
}

/** How a stdio program ended: its end as the spawner saw it (null: the connection to the spawner was lost). */
export interface StdioExit {
  end: TaskEnd | null;
  stderrTail: string;
  message: string | null;
}

export interface StdioHandlers {
  onStdout(data: string): void;
  onExit(exit: StdioExit): void;
}

/** A running stdio program of this session, reached through the spawner. */
export interface StdioProcess {
  readonly stderrFile: string;
  write(data: string): void;
  /** Ends its process group; onExit follows. */
  close(): void;
}

export type StdioOutcome = { kind: "started"; process: StdioProcess } | { kind: "error"; message: string };

type ReplyOf<T extends SpawnerReply["type"]> = Extract<SpawnerReply, { type: T }>;
type Handler = (reply: Exclude<SpawnerReply, { type: "welcome" | "denied" }>) => void;

export class SpawnerConnection {
  #grant: SpawnerGrant | null;
  readonly #handlers = new Map<string, Handler>();
  #socket: Socket | null = null;
  #ready: Promise<Socket> | null = null;
  #closedWhy: string | null = null;
  #nextId = 1;
  /** pauseWhile calls not yet settled. */
  #pauses = 0;

  constructor(grant: SpawnerGrant | null) {
    this.#grant = grant;
  }

  /** A restarted spawner's grant: the next command connects with it (the old connection died with the old one). */
  regrant(grant: SpawnerGrant): void {
    this.#socket?.destroy();
    this.#grant = grant;
    this.#socket = null;
    this.#ready = null;
    this.#closedWhy = null;
  }

  /** Runs a command; foreground runs resolve when the command's group is gone, background ones once started. */
  async run(request: RunRequest, handlers: RunHandlers = {}): Promise<RunOutcome> {
    const socket = await this.#open();
    const id = String(this.#nextId++);
    return new Promise<RunOutcome>((resolve) => {
      const onAbort = () => this.#write(socket, { op: "cancel", id });
      const finish = (outcome: RunOutcome) => {
        handlers.signal?.removeEventListener("abort", onAbort);
        this.#handlers.delete(id);
        resolve(outcome);
      };
      this.#handlers.set(id, (reply) => {
        switch (reply.type) {
          case "started":
            if (request.background) finish({ kind: "started", taskId: reply.taskId, outputFile: reply.outputFile });
            else handlers.onStarted?.(reply.outputFile);
            return;
          case "output":
            handlers.onOutput?.(reply.data);
            return;
          case "exited":
            finish({
              kind: "exited",
              end: reply.end,
              totalBytes: reply.totalBytes,
              outputFile: reply.outputFile,
              tail: reply.tail,
            });
            return;
          case "error":
            finish({ kind: "error", message: reply.message });
            return;
          default:
            finish({ kind: "error", message: `unexpected reply from the command runner: ${reply.type}` });
        }
      });
      this.#write(socket, { op: "run", id, ...request });
      if (!request.background) handlers.signal?.addEventListener("abort", onAbort, { once: true });
      if (handlers.signal?.aborted && !request.background) onAbort();
    });
  }

  /** Starts a long-lived program with its stdin and stdout streamed over this connection (an MCP stdio server). */
  async openStdio(request: StdioRequest, handlers: StdioHandlers): Promise<StdioOutcome> {
    let socket: Socket;
    try {
      socket = await this.#open();
    } catch (error) {
      return { kind: "error", message: (error as Error).message };
    }
    const id = String(this.#nextId++);
    return new Promise<StdioOutcome>((resolve) => {
      let started = false;
      this.#handlers.set(id, (reply) => {
        switch (reply.type) {
          case "stdio_started":
            started = true;
            resolve({
              kind: "started",
              process: {
                stderrFile: reply.stderrFile,
                write: (data) => this.#write(socket, { op: "stdin", id, data }),
                close: () => this.#write(socket, { op: "close_stdio", id }),
              },
            });
            return;
          case "stdout":
            handlers.onStdout(reply.data);
            return;
          case "stdio_exited":
            this.#handlers.delete(id);
            handlers.onExit({ end: reply.end, stderrTail: reply.stderrTail, message: null });
            return;
          case "error":
            this.#handlers.delete(id);
            if (started) handlers.onExit({ end: null, stderrTail: "", message: reply.message });
            else resolve({ kind: "error", message: reply.message });
            return;
          default:
            this.#handlers.delete(id);
            if (started)
              handlers.onExit({
                end: null,
                stderrTail: "",
                message: `unexpected reply from the command runner: ${reply.type}`,
              });
            else resolve({ kind: "error", message: `unexpected reply from the command runner: ${reply.type}` });
        }
      });
      this.#write(socket, { op: "open_stdio", id, ...request });
    });
  }

  read(taskId: string): Promise<ReplyOf<"task_output"> | ReplyOf<"error">> {
    return this.#request({ op: "read", taskId }, ["task_output"]);
  }

  kill(taskId: string): Promise<ReplyOf<"task_killed"> | ReplyOf<"error">> {
    return this.#request({ op: "kill", taskId }, ["task_killed"]);
  }

  /**
   * Reads nothing more from the spawner until `wait` settles: the spawner then stops reading the commands' output
   * (its socket to this worker is full), so a command that writes faster than the client reads blocks on its pipe.
   */
  pauseWhile(wait: Promise<void>): void {
    const socket = this.#socket;
    if (!socket) return;
    this.#pauses++;
    socket.pause();
    void wait.finally(() => {
      if (--this.#pauses === 0 && this.#socket === socket) socket.resume();
    });
  }

  /** Closing ends this worker's foreground commands; the session's background tasks stay with the session. */
  close(): void {
    this.#closedWhy ??= "the session worker is closing";
    this.#socket?.destroy();
  }

  async #request<T extends "task_output" | "task_killed">(
    request: { op: "read" | "kill"; taskId: string },
    expected: T[],
  ): Promise<ReplyOf<T> | ReplyOf<"error">> {
    const socket = await this.#open();
    const id = String(this.#nextId++);
    return new Promise((resolve) => {
      this.#handlers.set(id, (reply) => {
        this.#handlers.delete(id);
        if (reply.type === "error" || (expected as string[]).includes(reply.type))
          resolve(reply as ReplyOf<T> | ReplyOf<"error">);
        else resolve({ type: "error", id, message: `unexpected reply from the command runner: ${reply.type}` });
      });
      this.#write(socket, { ...request, id });
    });
  }

  #open(): Promise<Socket> {
    if (this.#closedWhy) return Promise.reject(new Error(`cannot run commands: ${this.#closedWhy}`));
    const grant = this.#grant;
    if (!grant)
      return Promise.reject(
        new Error("cannot run commands: this host's command runner (its spawner process) is not running"),
      );
    // node:net is loaded by the session's first command, not by every session worker.
    this.#ready ??= import("node:net").then(
      ({ createConnection }) =>
        new Promise<Socket>((resolve, reject) => {
          const socket = createConnection(grant.socketPath);
          this.#socket = socket;
          let welcomed = false;
          socket.once("connect", () => this.#write(socket, { op: "hello", token: grant.token }));
          readJsonLines(
            socket,
            (value) => {
              const parsed = SpawnerReply.safeParse(value);
              if (!parsed.success) {
                this.#fail(
                  socket,
                  `invalid message from the command runner: ${parsed.error.issues[0]?.message ?? "unknown"}`,
                );
                return;
              }
              const reply = parsed.data;
              if (reply.type === "welcome") {
                welcomed = true;
                resolve(socket);
              } else if (reply.type === "denied")
                this.#fail(socket, `the command runner refused this session: ${reply.message}`);
              else this.#handlers.get(reply.id)?.(reply);
            },
            (error) => this.#fail(socket, error.message),
          );
          socket.on("error", (error) => this.#fail(socket, `command runner unreachable: ${error.message}`));
          socket.once("close", () => {
            this.#fail(socket, "the connection to the command runner closed");
            if (!welcomed) reject(new Error(`cannot run commands: ${this.#closedWhy}`));
          });
        }),
    );
    return this.#ready;
  }

  #fail(socket: Socket, why: string): void {
    // A connection already replaced by a regrant ends quietly: it speaks for a spawner that is gone.
    if (socket !== this.#socket) return void socket.destroy();
    this.#closedWhy ??= why;
    socket.destroy();
    for (const [id, handler] of [...this.#handlers])
      handler({ type: "error", id, message: `command aborted: ${this.#closedWhy}` });
    this.#handlers.clear();
  }

  #write(socket: Socket, request: WorkerRequestInput): void {
    if (!socket.destroyed) socket.write(jsonLine(request));
  }
}
