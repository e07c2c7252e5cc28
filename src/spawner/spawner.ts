// The spawner's state: sessions (granted by the host main thread), one-time tokens, session connections, and every
// live task. Which session a command belongs to comes from the grant a connection redeemed, never from a message.
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Socket } from "node:net";
import type { ControlRequest, SandboxStatus, SpawnerOptions } from "../protocol/spawner-control.js";
import type { SandboxKind } from "../protocol/spawner-requests.js";
import { Connection, type ConnectionOwner, type RunRequest, type StdioRequest } from "./connection.js";
import type { SpawnerLog } from "./log.js";
import { DirectTask } from "./direct-task.js";
import { commandEnv, directLaunch, launchArgv, masksFor, type SandboxPlan } from "./sandbox.js";
import { SandboxedTask } from "./sandboxed-task.js";
import { sandboxDir, SessionSandbox } from "./session-sandbox.js";
import { SpawnerSession, type UnreadOutput } from "./spawner-session.js";
import type { SystemEntry } from "./system-view.js";
import type { Task } from "./task.js";
import { newInstance, newTaskId } from "./task-ids.js";

export class Spawner implements ConnectionOwner {
  readonly #options: SpawnerOptions;
  readonly #runtimeDir: string;
  readonly #outputRoot: string;
  readonly #sandbox: SandboxStatus;
  readonly #log: SpawnerLog;
  /** Confined sandboxes' system directories; undefined: the host's whole root, read-only. */
  readonly #system: readonly SystemEntry[] | undefined;
  readonly #sessions = new Map<string, SpawnerSession>();
  readonly #tokens = new Map<string, string>();
  /** Spent tokens (by session, forgotten with it): presenting one again is refused at once. */
  readonly #spent = new Map<string, string>();
  readonly #grantWaiters = new Map<string, Set<() => void>>();
  readonly #connections = new Set<Connection>();
  readonly #tasks = new Set<Task>();
  /** Session ends under way: the spawner's shutdown waits for them, so it never exits in the middle of one. */
  readonly #endings = new Set<Promise<unknown>>();
  readonly #sandboxes = new Set<SessionSandbox>();
  /** Grows when a session with a new workspace appears: sandboxes started before may need to mask it. */
  #maskGeneration = 0;
  /** In every task id this process makes (task-ids.ts). */
  readonly instance = newInstance();
  #closing = false;
  #shutdown: Promise<void> | null = null;

  constructor(
    options: SpawnerOptions,
    runtimeDir: string,
    outputRoot: string,
    sandbox: SandboxStatus,
    log: SpawnerLog,
    system?: readonly SystemEntry[],
  ) {
    this.#options = { ...options, hidden: options.hidden.map(realPathOf) };
    this.#system = system;
    this.#runtimeDir = runtimeDir;
    this.#outputRoot = outputRoot;
    this.#sandbox = sandbox;
    this.#log = log;
  }

  get log(): SpawnerLog {
    return this.#log;
  }

  grant(request: Extract<ControlRequest, { op: "grant" }>): void {
    if (this.#closing) return;
    this.workspace(request);
    this.#tokens.set(request.token, request.sessionId);
    for (const wake of this.#grantWaiters.get(request.token) ?? []) wake();
    this.#grantWaiters.delete(request.token);
  }

  /** Knows the session and its workspace: a workspace new to it is masked from every other session's next command. */
  workspace(request: { sessionId: string; cwd: string; outputDir: string | null }): void {
    if (this.#closing || this.#sessions.has(request.sessionId)) return;
    // Confined, the host sends the real path it checked against the tenant's roots: kept as sent, so that #prepare
    // sees a directory of it swapped for a symlink since.
    const cwd = this.#system ? resolve(request.cwd) : realPathOf(request.cwd);
    const outputDir = request.outputDir ?? join(this.#outputRoot, request.sessionId);
    if (![...this.#sessions.values()].some((known) => known.cwd === cwd)) this.#maskGeneration++;
    this.#sessions.set(request.sessionId, new SpawnerSession(request.sessionId, cwd, outputDir));
  }

  /** The session a one-time token was granted for; the token is spent. */
  async redeem(token: string): Promise<SpawnerSession | null> {
    if (this.#spent.has(token)) return null;
    if (!this.#tokens.has(token) && !this.#closing) {
      await new Promise<void>((resolve) => {
        const waiters = this.#grantWaiters.get(token) ?? new Set<() => void>();
        this.#grantWaiters.set(token, waiters);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          if (waiters.size === 0 && this.#grantWaiters.get(token) === waiters) this.#grantWaiters.delete(token);
          resolve();
        };
        const timer = setTimeout(done, this.#options.grantWaitMs);
        waiters.add(done);
      });
    }
    const sessionId = this.#tokens.get(token);
    if (sessionId === undefined) return null;
    this.#tokens.delete(token);
    this.#spent.set(token, sessionId);
    return this.#sessions.get(sessionId) ?? null;
  }

  accept(socket: Socket): void {
    if (this.#closing) {
      socket.destroy();
      return;
    }
    const connection = new Connection(this, socket);
    this.#connections.add(connection);
    socket.once("close", () => this.#connections.delete(connection));
  }

  isLive(session: SpawnerSession): boolean {
    return this.#sessions.get(session.id) === session;
  }

  /** Starts a command for a session, or says why it cannot run. */
  /** Background runs pass the buffer their output goes to; they are filed under the session before this returns. */
  async start(
    session: SpawnerSession,
    request: RunRequest,
    onOutput: (text: string) => void,
    unread: UnreadOutput | null,
  ): Promise<Task | string> {
    const kind = request.sandbox;
    // The workspace check and the sandbox lookup are independent: one wait for both, not two in a row.
    const [problem, sandbox] = await Promise.all([
      this.#prepare(session, kind),
      kind === "none" || this.#refusal(kind) ? null : session.serialize(() => this.#sandboxFor(session, kind)),
    ]);
    if (problem) return problem;
    if (this.#closing || !this.isLive(session)) {
      void sandbox?.end();
      return "the session has ended";
    }
    const max = this.#options.maxBackgroundTasks;
    if (request.background && session.runningBackground >= max) {
      return `at most ${max} background tasks may run per session; end one with bash_kill first`;
    }
    const id = newTaskId(request.background, this.instance);
    const common = {
      id,
      outputFile: join(session.outputDir, `${id}.log`),
      timeoutMs: request.background ? null : request.timeoutMs,
      onOutput,
      onWarning: (message: string, data: Record<string, unknown>) =>
        this.#log("warn", message, { sessionId: session.id, taskId: id, ...data }),
    };
    const task = this.#track(
      sandbox
        ? new SandboxedTask({ ...common, sandbox, command: request.command })
        : new DirectTask({
            ...common,
            launch: directLaunch(request.command),
            cwd: session.cwd,
            env: commandEnv(process.env),
          }),
    );
    if (unread) {
      session.background.set(id, { task, unread });
      void task.done.then(() => session.prune());
    }
    return task;
  }

  /**
   * Starts a long-lived stdio program (an MCP server) for a session: its argv as given, in the session's workspace
   * and under a bwrap of its own with the session's policy, with the environment it was given over the minimal base
   * commands get (never the host's secrets).
   */
  async startStdio(
    session: SpawnerSession,
    request: StdioRequest,
    onStdout: (text: string) => void,
  ): Promise<DirectTask | string> {
    const problem = await this.#prepare(session, request.sandbox);
    if (problem) return problem;
    const plan = request.sandbox === "none" ? null : await this.#planFor(session, request.sandbox, "stdio");
    if (this.#closing || !this.isLive(session)) return "the session has ended";
    const id = `mcp-${randomBytes(6).toString("hex")}`;
    const task = new DirectTask({
      id,
      launch: launchArgv(this.#options.bwrapPath, plan, [request.command, ...request.args]),
      cwd: session.cwd,
      env: { ...commandEnv(process.env), ...request.env },
      outputFile: join(session.outputDir, `${id}.stderr.log`),
      timeoutMs: null,
      onOutput: onStdout,
      onWarning: (message, data) => this.#log("warn", message, { sessionId: session.id, taskId: id, ...data }),
      stdio: true,
      label: request.command,
    });
    this.#track(task);
    return task;
  }

  /** Why a session's command cannot run now, or null. */
  async #prepare(session: SpawnerSession, kind: SandboxKind): Promise<string | null> {
    const refusal = this.#refusal(kind);
    if (refusal) return refusal;
    const workspace = await stat(session.cwd).catch(() => null);
    if (!workspace?.isDirectory()) return `the workspace ${session.cwd} is not a directory any more`;
    if (this.#system && (await realpath(session.cwd).catch(() => null)) !== session.cwd)
      return `the workspace ${session.cwd} now leads elsewhere through a symlink: refused`;
    try {
      await session.ensureOutputDir();
    } catch (error) {
      return `cannot create the output directory ${session.outputDir}: ${(error as Error).message}`;
    }
    return null;
  }

  /** The policy of a sandbox for this session now: its kind, and every other workspace and hidden path masked. */
  /** commands: workspace-write gets a /tmp of its own; a stdio program sees the host's, read-only and masked. */
  async #planFor(
    session: SpawnerSession,
    kind: Exclude<SandboxKind, "none">,
    use: "commands" | "stdio",
  ): Promise<SandboxPlan> {
    const privateTmp = kind === "workspace-write" && use === "commands";
    const others = [this.#runtimeDir, ...this.#options.hidden, ...[...this.#sessions.values()].map((s) => s.cwd)];
    // bwrap cannot mount over a path that is gone (a workspace deleted since): mask only what exists.
    const { dirs, files } = await existing(masksFor(privateTmp, session.cwd, others, this.#system));
    return {
      kind,
      privateTmp,
      workspace: session.cwd,
      network: this.#options.network,
      masks: dirs,
      fileMasks: files,
      ...(this.#system ? { system: this.#system } : {}),
    };
  }

  #track<T extends Task>(task: T): T {
    this.#tasks.add(task);
    void task.done.then(() => this.#tasks.delete(task));
    return task;
  }

  /** Ends every command of a session and forgets it; resolves with how many were still running, once their processes are gone. */
  async endSession(sessionId: string): Promise<number> {
    for (const [token, owner] of this.#tokens) if (owner === sessionId) this.#tokens.delete(token);
    for (const [token, owner] of this.#spent) if (owner === sessionId) this.#spent.delete(token);
    const session = this.#sessions.get(sessionId);
    if (!session) return 0;
    this.#sessions.delete(sessionId);
    const tasks = [...session.background.values()].map((bg) => bg.task);
    for (const connection of this.#connections) {
      if (connection.session !== session) continue;
      tasks.push(...connection.foregroundTasks());
      connection.close();
    }
    session.background.clear();
    const running = tasks.filter((task) => !task.end);
    const killing = Promise.all([
      ...running.map((task) => task.kill("killed")),
      ...session.sandboxes().map((sandbox) => sandbox.end()),
    ]);
    this.#endings.add(killing);
    await killing.finally(() => this.#endings.delete(killing));
    if (running.length > 0) this.#log("info", "session commands ended", { sessionId, killed: running.length });
    return running.length;
  }

  /** Ends every command of every session; once (the host's shutdown order and its stdin's end both ask). */
  shutdown(): Promise<void> {
    this.#shutdown ??= this.#endAll();
    return this.#shutdown;
  }

  /** Resolves once every process the spawner started is gone: the host exits only after that. */
  async #endAll(): Promise<void> {
    this.#closing = true;
    for (const connection of this.#connections) connection.close();
    await Promise.all([...this.#sessions.keys()].map((id) => this.endSession(id)));
    await Promise.allSettled(this.#endings);
    await Promise.all([...this.#tasks].map((task) => task.kill("killed")));
    await Promise.all([...this.#sandboxes].map((sandbox) => sandbox.end()));
  }

  /** Synchronous last resort when the spawner itself is failing. */
  killAllNow(): void {
    for (const task of this.#tasks) task.killNow();
    for (const sandbox of this.#sandboxes) sandbox.killNow();
  }

  /**
   * The session's sandbox for this kind of command: the one it has while its policy still holds, or a new one.
   * A sandbox whose policy no longer holds (another kind, or a new workspace it would have to mask) is retired: it
   * takes no new command and ends with its last one.
   */
  async #sandboxFor(session: SpawnerSession, kind: Exclude<SandboxKind, "none">): Promise<SessionSandbox> {
    const current = session.sandbox;
    const generation = this.#maskGeneration;
    if (current && !current.ended && current.plan.kind === kind && current.generation === generation) return current;
    const plan = await this.#planFor(session, kind, "commands");
    if (
      current &&
      !current.ended &&
      current.plan.kind === kind &&
      sameList(current.plan.masks, plan.masks) &&
      sameList(current.plan.fileMasks ?? [], plan.fileMasks ?? [])
    ) {
      current.generation = generation;
      return current;
    }
    current?.retire();
    const sandbox = new SessionSandbox({
      bwrapPath: this.#options.bwrapPath!,
      plan,
      execDir: sandboxDir(
        this.#runtimeDir,
        `${session.id.replace(/[^A-Za-z0-9-]/g, "_").slice(0, 80)}-${randomBytes(4).toString("hex")}`,
      ),
      generation,
      sessionId: session.id,
      log: this.#log,
    });
    this.#sandboxes.add(sandbox);
    sandbox.onEnded(() => this.#sandboxes.delete(sandbox));
    session.adopt(sandbox);
    return sandbox;
  }

  #refusal(sandbox: RunRequest["sandbox"]): string | null {
    if (this.#closing) return "the host is shutting down";
    if (sandbox === "none") {
      return this.#options.allowFullAccess
        ? null
        : "full-access (unsandboxed) commands need a host started with --allow-full-access";
    }
    if (!this.#sandbox.ok) {
      return `sandbox unavailable: ${this.#sandbox.detail}. Commands in the ${sandbox} sandbox fail closed: they never run unsandboxed.`;
    }
    return null;
  }
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** The paths that exist, directories (masked by a tmpfs) apart from files (masked by /dev/null). */
async function existing(paths: string[]): Promise<{ dirs: string[]; files: string[] }> {
  const found = await Promise.all(paths.map((path) => stat(path).catch(() => null)));
  return {
    dirs: paths.filter((_, i) => found[i]?.isDirectory()),
    files: paths.filter((_, i) => found[i]?.isFile()),
  };
}
