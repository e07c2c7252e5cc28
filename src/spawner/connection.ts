// One session worker's connection to the spawner. It is nobody's until it presents a token the host granted; from
// then on it reaches that session's tasks only. When it closes (the worker ended or died), its foreground commands
// are killed; the session's background tasks stay with the session.
import { access } from "node:fs/promises";
import type { Socket } from "node:net";
import { join } from "node:path";
import { jsonLine, readJsonLines } from "../protocol/ndjson-lines.js";
import type { SpawnerReply } from "../protocol/spawner-replies.js";
import { WorkerRequest } from "../protocol/spawner-requests.js";
import { UnreadOutput, type SpawnerSession } from "./spawner-session.js";
import type { SpawnerLog } from "./log.js";
import type { DirectTask } from "./direct-task.js";
import type { Task } from "./task.js";
import { instanceOf } from "./task-ids.js";

export type RunRequest = Extract<WorkerRequest, { op: "run" }>;
export type StdioRequest = Extract<WorkerRequest, { op: "open_stdio" }>;

/** What a connection asks of the spawner that accepted it (spawner.ts). */
export interface ConnectionOwner {
  readonly instance: string;
  readonly log: SpawnerLog;
  redeem(token: string): Promise<SpawnerSession | null>;
  start(
    session: SpawnerSession,
    request: RunRequest,
    onOutput: (text: string) => void,
    unread: UnreadOutput | null,
  ): Promise<Task | string>;
  startStdio(
    session: SpawnerSession,
    request: StdioRequest,
    onStdout: (text: string) => void,
  ): Promise<DirectTask | string>;
}

const HELLO_TIMEOUT_MS = 10_000;
/** Foreground output is sent in coalesced pieces: at most this often, or sooner once this much is waiting. */
const FLUSH_MS = 20;
const FLUSH_CHARS = 32 * 1024;

interface Foreground {
  task: Task | null;
  /** A cancel that came while the command was still being started. */
  cancelled: boolean;
  pending: string;
  timer: NodeJS.Timeout | null;
  /** Output that may still be sent as it comes; past it, only a tail is kept for the end. */
  forwardLeft: number;
  tail: UnreadOutput | null;
}

export class Connection {
  #session: SpawnerSession | null = null;
  readonly #spawner: ConnectionOwner;
  readonly #socket: Socket;
  readonly #foreground = new Map<string, Foreground>();
  readonly #paused = new Set<Task>();
  /** Long-lived stdio programs (MCP servers) of this connection, by call id; null while one is being started. */
  readonly #stdio = new Map<string, DirectTask | null>();
  #hello: Promise<void> | null = null;
  #denied = false;

  constructor(spawner: ConnectionOwner, socket: Socket) {
    this.#spawner = spawner;
    this.#socket = socket;
    const helloTimer = setTimeout(() => {
      if (!this.#session) this.#deny("no hello within the time allowed");
    }, HELLO_TIMEOUT_MS);
    socket.on("error", () => {});
    socket.on("drain", () => {
      for (const task of this.#paused) task.resume();
      this.#paused.clear();
    });
    socket.once("close", () => {
      clearTimeout(helloTimer);
      for (const fg of this.#foreground.values()) {
        if (fg.timer) clearTimeout(fg.timer);
        void fg.task?.kill("killed");
      }
      for (const task of this.#stdio.values()) void task?.kill("killed");
      // Nobody reads their output any more: let it drain (to the output file) so they can end.
      for (const task of this.#paused) task.resume();
      this.#paused.clear();
    });
    readJsonLines(
      socket,
      (value) => this.#receive(value),
      (error) => this.#deny(error.message),
    );
  }

  get session(): SpawnerSession | null {
    return this.#session;
  }

  /** Its foreground commands and stdio programs: they are this connection's, and end with it. */
  foregroundTasks(): Task[] {
    const stdio = [...this.#stdio.values()].filter((task): task is DirectTask => task !== null);
    return [...this.#foreground.values()].flatMap((fg) => (fg.task ? [fg.task] : [])).concat(stdio);
  }

  close(): void {
    this.#socket.destroy();
  }

  #receive(value: unknown): void {
    if (this.#denied) return;
    const parsed = WorkerRequest.safeParse(value);
    if (!parsed.success) {
      this.#deny(`invalid message: ${parsed.error.issues[0]?.message ?? "unknown"}`);
      return;
    }
    const request = parsed.data;
    if (request.op === "hello") {
      if (this.#hello) this.#deny("hello sent twice");
      else this.#hello = this.#greet(request.token);
      return;
    }
    if (!this.#hello) {
      this.#deny("the first message must be hello");
      return;
    }
    // Requests sent right after hello wait for it; none of them is ever run for another session.
    void this.#hello.then(() => {
      const session = this.#session;
      if (session) this.#handle(session, request);
    });
  }

  async #greet(token: string): Promise<void> {
    const session = await this.#spawner.redeem(token);
    if (!session) {
      this.#deny("unknown or already used token");
      return;
    }
    this.#session = session;
    this.#send({ type: "welcome" });
  }

  #handle(session: SpawnerSession, request: Exclude<WorkerRequest, { op: "hello" }>): void {
    switch (request.op) {
      case "run":
        void this.#run(session, request);
        return;
      case "cancel": {
        const fg = this.#foreground.get(request.id);
        if (!fg) return;
        fg.cancelled = true;
        void fg.task?.kill("killed");
        return;
      }
      case "read": {
        const bg = session.background.get(request.taskId);
        if (!bg) return this.#noSuchTask(session, request.id, request.taskId);
        const { output, droppedBytes } = bg.unread.take();
        this.#send({
          type: "task_output",
          id: request.id,
          taskId: request.taskId,
          output,
          droppedBytes,
          end: bg.task.end,
          outputFile: bg.task.outputFile,
        });
        return;
      }
      case "open_stdio":
        void this.#openStdio(session, request);
        return;
      case "stdin":
        this.#stdio.get(request.id)?.write(request.data);
        return;
      case "close_stdio":
        void this.#stdio.get(request.id)?.kill("killed");
        return;
      case "kill": {
        const bg = session.background.get(request.taskId);
        if (!bg) return this.#noSuchTask(session, request.id, request.taskId);
        const wasRunning = !bg.task.end;
        void bg.task
          .kill("killed")
          .then((end) => this.#send({ type: "task_killed", id: request.id, taskId: request.taskId, wasRunning, end }));
        return;
      }
    }
  }

  /**
   * The same answer whether the id never existed or belongs to another session; an id an earlier spawner made is
   * a task that ended with it (said from the id alone, and the session's own output directory).
   */
  #noSuchTask(session: SpawnerSession, id: string, taskId: string): void {
    const instance = instanceOf(taskId);
    if (instance === null || instance === this.#spawner.instance) {
      this.#send({ type: "error", id, message: `no such background task: ${taskId}` });
      return;
    }
    const outputFile = join(session.outputDir, `${taskId}.log`);
    void access(outputFile)
      .then(
        () => ` Its output until then is in ${outputFile}.`,
        () => "",
      )
      .then((output) =>
        this.#send({
          type: "error",
          id,
          message: `background task ${taskId} is gone: the command runner that started it exited (it was restarted since, or the host was), and the task ended with it.${output}`,
        }),
      );
  }

  async #run(session: SpawnerSession, request: RunRequest): Promise<void> {
    if (this.#foreground.has(request.id)) {
      this.#send({ type: "error", id: request.id, message: `duplicate call id ${request.id}` });
      return;
    }
    const fg: Foreground | null = request.background
      ? null
      : { task: null, cancelled: false, pending: "", timer: null, forwardLeft: request.forwardBytes, tail: null };
    const unread = new UnreadOutput();
    if (fg) this.#foreground.set(request.id, fg);
    const onOutput = fg
      ? (text: string) => this.#stream(request.id, fg, text, request.tailBytes)
      : (text: string) => unread.append(text);

    const started = await this.#spawner.start(session, request, onOutput, fg ? null : unread);
    if (typeof started === "string") {
      this.#foreground.delete(request.id);
      this.#send({ type: "error", id: request.id, message: started });
      return;
    }
    this.#send({ type: "started", id: request.id, taskId: started.id, outputFile: started.outputFile });
    if (!fg) return;
    fg.task = started;
    if (fg.cancelled || this.#socket.destroyed) void started.kill("killed");
    const end = await started.done;
    this.#flush(request.id, fg);
    this.#foreground.delete(request.id);
    this.#paused.delete(started);
    this.#send({
      type: "exited",
      id: request.id,
      end,
      totalBytes: started.totalBytes,
      outputFile: started.outputFile,
      tail: fg.tail?.take().output ?? null,
    });
  }

  async #openStdio(session: SpawnerSession, request: StdioRequest): Promise<void> {
    if (this.#stdio.has(request.id) || this.#foreground.has(request.id)) {
      this.#send({ type: "error", id: request.id, message: `duplicate call id ${request.id}` });
      return;
    }
    this.#stdio.set(request.id, null);
    let task: DirectTask | null = null;
    const started = await this.#spawner.startStdio(session, request, (data) => {
      if (!this.#send({ type: "stdout", id: request.id, data }) && task && !this.#socket.destroyed) {
        task.pause();
        this.#paused.add(task);
      }
    });
    if (typeof started === "string") {
      this.#stdio.delete(request.id);
      this.#send({ type: "error", id: request.id, message: started });
      return;
    }
    task = started;
    this.#stdio.set(request.id, task);
    this.#send({ type: "stdio_started", id: request.id, taskId: task.id, stderrFile: task.outputFile });
    // The connection closed (or close_stdio came) while it was being started.
    if (this.#socket.destroyed) void task.kill("killed");
    const end = await task.done;
    this.#stdio.delete(request.id);
    this.#paused.delete(task);
    this.#send({ type: "stdio_exited", id: request.id, end, stderrTail: task.stderrTail });
  }

  #stream(id: string, fg: Foreground, text: string, tailBytes: number): void {
    if (fg.forwardLeft <= 0) {
      (fg.tail ??= new UnreadOutput(tailBytes)).append(text);
      fg.task?.skipToTail?.(tailBytes);
      return;
    }
    // Counted in characters: never fewer than the bytes they are, so at least forwardBytes are sent.
    fg.forwardLeft -= text.length;
    fg.pending += text;
    if (fg.forwardLeft <= 0) fg.task?.skipToTail?.(tailBytes);
    if (fg.pending.length >= FLUSH_CHARS) this.#flush(id, fg);
    else fg.timer ??= setTimeout(() => this.#flush(id, fg), FLUSH_MS);
  }

  #flush(id: string, fg: Foreground): void {
    if (fg.timer) clearTimeout(fg.timer);
    fg.timer = null;
    if (fg.pending.length === 0) return;
    const data = fg.pending;
    fg.pending = "";
    if (!this.#send({ type: "output", id, data }) && fg.task && !this.#socket.destroyed) {
      fg.task.pause();
      this.#paused.add(fg.task);
    }
  }

  #send(reply: SpawnerReply): boolean {
    if (this.#socket.destroyed) return false;
    return this.#socket.write(jsonLine(reply));
  }

  #deny(message: string): void {
    if (this.#denied) return;
    this.#denied = true;
    this.#spawner.log("warn", "session connection refused", { reason: message });
    if (this.#socket.destroyed) return;
    this.#socket.end(jsonLine({ type: "denied", message } satisfies SpawnerReply));
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }
}
