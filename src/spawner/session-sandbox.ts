// One long-lived bubblewrap sandbox of a session: its namespaces and mounts are made once, and the exec helper inside
// starts each command. It holds one policy (kind, network, masks); a command that needs another policy gets a new
// sandbox, and this one ends when its last command does. Everything in it dies with it: the helper is the only
// child of bwrap's pid-namespace init, and killing that init ends the namespace (bwrap-init.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { initPidOf, killSandbox } from "./bwrap-init.js";
import { execHelperArgv, frameRun } from "./exec-helper.js";
import type { SpawnerLog } from "./log.js";
import { bwrapArgs, commandEnv, type SandboxPlan } from "./sandbox.js";

/** A sandbox with no command running for this long is ended; the next command starts a fresh one. */
const IDLE_END_MS = 60_000;
/** How long end() waits for the namespace's processes to be gone, once its init was killed. */
const NAMESPACE_GONE_MS = 3000;
/** A report line longer than this is not the helper's: whatever wrote it ends the sandbox. */
const MAX_REPORT_CHARS = 256;
/** How much of bwrap's stderr is kept to say why a sandbox could not start. */
const DETAIL_CHARS = 2000;

export interface CommandWatcher {
  onPid(pgid: number): void;
  onExit(status: number, stuck: boolean): void;
  /** The sandbox ended (or never started) before the command's report: detail says why. */
  onLost(detail: string, started: boolean): void;
}

export class SessionSandbox {
  readonly plan: SandboxPlan;
  readonly execDir: string;
  /** The spawner's mask generation this sandbox's masks were checked against. */
  generation: number;
  /** null once up; the reason when it could not start. Settles once. */
  readonly ready: Promise<string | null>;
  readonly #log: SpawnerLog;
  readonly #sessionId: string;
  readonly #watchers = new Map<string, CommandWatcher>();
  #child: ChildProcess | null = null;
  #initPid: number | null = null;
  #up = false;
  #ended = false;
  #retired = false;
  #stderr = "";
  #idleTimer: NodeJS.Timeout | null = null;
  readonly #endedListeners: Array<() => void> = [];

  constructor(options: {
    bwrapPath: string;
    plan: SandboxPlan;
    execDir: string;
    generation: number;
    sessionId: string;
    log: SpawnerLog;
  }) {
    this.plan = options.plan;
    this.execDir = options.execDir;
    this.generation = options.generation;
    this.#log = options.log;
    this.#sessionId = options.sessionId;
    this.ready = this.#start(options.bwrapPath);
  }

  get ended(): boolean {
    return this.#ended;
  }

  get running(): number {
    return this.#watchers.size;
  }

  /** callback runs once the sandbox has ended and its directory is gone. */
  onEnded(callback: () => void): void {
    this.#endedListeners.push(callback);
  }

  /** Asks the helper to run command as ID (ID.out is in place). The watcher hears of it until its end. */
  run(id: string, command: string, watcher: CommandWatcher): void {
    if (this.#ended) {
      watcher.onLost("the session's sandbox has ended", false);
      return;
    }
    this.#clearIdle();
    this.#watchers.set(id, watcher);
    this.#child!.stdin!.write(frameRun(id, command));
  }

  signal(pgid: number, signal: "TERM" | "KILL"): void {
    if (!this.#ended) this.#child?.stdin?.write(`kill ${pgid} ${signal}\n`);
  }

  /** No new commands: the sandbox ends when its running commands have (at once if none is). */
  retire(): void {
    this.#retired = true;
    if (this.#watchers.size === 0) void this.end();
  }

  /**
   * Ends the sandbox and everything in it; resolves once bwrap has exited, which it does only after reaping its
   * namespace's init, and the init exits only once the kernel has emptied the namespace.
   */
  async end(): Promise<void> {
    if (!this.#ended) this.#finish("the session's sandbox was ended");
    const child = this.#child;
    if (!child?.pid) return;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    // A bwrap that does not exit once its init was killed (it never wrote the init's pid, or is stuck): its group.
    const timer = setTimeout(() => {
      this.#log("warn", "sandbox still there after its end: killing its group", { sessionId: this.#sessionId });
      killSandbox(child, null);
    }, NAMESPACE_GONE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Synchronous last resort (the spawner is dying). */
  killNow(): void {
    this.#kill();
  }

  async #start(bwrapPath: string): Promise<string | null> {
    try {
      await mkdir(this.execDir, { recursive: true, mode: 0o700 });
    } catch (error) {
      this.#finish(`cannot create the sandbox's directory: ${(error as Error).message}`);
      return `the sandbox could not start: cannot create ${this.execDir}: ${(error as Error).message}`;
    }
    if (this.#ended) return "the session's sandbox was ended";
    const argv = execHelperArgv(this.execDir);
    let child: ChildProcess;
    try {
      child = spawn(bwrapPath, bwrapArgs(this.plan, argv, { binds: [this.execDir], statusFd: true }), {
        cwd: this.plan.workspace,
        env: commandEnv(process.env),
        detached: true, // a process group of its own, and of no terminal
        stdio: ["pipe", "pipe", "pipe", "pipe"],
      });
    } catch (error) {
      const detail = `the sandbox could not start: ${bwrapPath}: ${(error as Error).message}`;
      this.#finish(detail);
      return detail;
    }
    this.#child = child;
    child.stdin!.on("error", () => {});
    let status = "";
    const statusPipe = child.stdio[3] as Readable;
    statusPipe.setEncoding("utf8");
    statusPipe.on("data", (text: string) => {
      if (this.#initPid !== null) return;
      status += text;
      this.#initPid = initPidOf(status);
      // The init may have been asked to end before bwrap said which process it is.
      if (this.#initPid !== null && this.#ended) this.#kill();
    });
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      if (this.#stderr.length < DETAIL_CHARS) this.#stderr += text.slice(0, DETAIL_CHARS - this.#stderr.length);
    });
    return new Promise<string | null>((resolve) => {
      let pending = "";
      child.stdout!.setEncoding("utf8").on("data", (text: string) => {
        pending += text;
        let newline: number;
        while ((newline = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          if (line === "ready" && !this.#up) {
            this.#up = true;
            this.#idleSoon();
            resolve(null);
          } else this.#report(line);
        }
        if (pending.length > MAX_REPORT_CHARS) this.#finish("the sandbox's helper wrote something it never writes");
      });
      child.once("error", (error) => this.#finish(`the sandbox could not start: ${error.message}`));
      child.once("exit", (code, signal) => {
        const why = this.#stderr.trim() || `bwrap exited with ${signal ?? code}`;
        this.#finish(this.#up ? `the session's sandbox ended: ${why}` : `the sandbox could not start: ${why}`);
        resolve(this.#up ? null : `the sandbox could not start: ${why}`);
      });
    });
  }

  #report(line: string): void {
    // Reports read after the sandbox was ended (its commands were told they are lost then) belong to nobody.
    if (this.#ended) return;
    const [what, id, value, flag] = line.split(" ");
    const watcher = id === undefined ? undefined : this.#watchers.get(id);
    const number = Number(value);
    if (!watcher || !Number.isInteger(number) || number < 0) {
      this.#log("warn", "sandbox report ignored", { sessionId: this.#sessionId, line: line.slice(0, 120) });
      return;
    }
    if (what === "pid") watcher.onPid(number);
    else if (what === "exit") {
      this.#watchers.delete(id!);
      watcher.onExit(number, flag === "stuck");
      if (this.#watchers.size === 0) {
        if (this.#retired) void this.end();
        else this.#idleSoon();
      }
    }
  }

  #finish(detail: string): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#clearIdle();
    this.#kill();
    const lost = [...this.#watchers.values()];
    this.#watchers.clear();
    for (const watcher of lost) watcher.onLost(detail, this.#up);
    void rm(this.execDir, { recursive: true, force: true })
      .catch(() => {})
      .then(() => {
        for (const listener of this.#endedListeners) listener();
      });
  }

  #kill(): void {
    if (this.#child) killSandbox(this.#child, this.#initPid);
  }

  #idleSoon(): void {
    this.#clearIdle();
    this.#idleTimer = setTimeout(() => void this.end(), IDLE_END_MS);
    this.#idleTimer.unref();
  }

  #clearIdle(): void {
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = null;
  }
}

export function sandboxDir(runtimeDir: string, name: string): string {
  return join(runtimeDir, "exec", name);
}
