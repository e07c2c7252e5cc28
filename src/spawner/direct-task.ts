// A process the spawner starts itself, in a session and process group of its own: a full-access command (bash,
// unconfined), or a long-lived stdio program (an MCP server) under a bwrap of its own. Sandboxed commands are started
// by their session's sandbox instead (SandboxedTask). It is over only when its whole group is gone: the leader has
// exited, stragglers were killed, and kill(-pgid, 0) says no process is left.
import { spawn, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type { EndReason, TaskEnd } from "../protocol/spawner-replies.js";
import { initPidOf, killSandbox } from "./bwrap-init.js";
import { whenGroupGone } from "./group-watch.js";
import type { Launch } from "./sandbox.js";
import { KILL_GRACE_MS, type Task, type TaskOptions } from "./task.js";
import { TaskOutput } from "./task-output.js";
/** After the leader exits, how long its pipes may take to deliver the last output. */
const DRAIN_MS = 2000;
const GONE_WAIT_MS = 3000;
/** For a sandbox that failed to start: the head of the output is bwrap's own message. */
const DETAIL_CHARS = 2000;
/** A stdio program's stderr kept in its file at most (the rest is counted, not kept), and in memory for errors. */
const STDERR_FILE_BYTES = 1024 * 1024;
const STDERR_TAIL_CHARS = 2000;

export interface DirectTaskOptions extends TaskOptions {
  launch: Launch;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /**
   * A long-lived program spoken to on stdin and stdout (an MCP server): stdin is a pipe (see write), stdout goes to
   * onOutput only, stderr to the output file (bounded) and to stderrTail.
   */
  stdio?: boolean;
  /** What a launch without a sandbox runs, for its start failure ("bash could not start"). */
  label?: string;
}

export class DirectTask implements Task {
  readonly id: string;
  readonly outputFile: string;
  readonly done: Promise<TaskEnd>;
  totalBytes = 0;
  end: TaskEnd | null = null;
  #child: ChildProcess | null = null;
  #pgid: number | null = null;
  /** A sandboxed launch's namespace init, once bwrap has said which process it is. */
  #initPid: number | null = null;
  #groupGone = false;
  #killing: "killed" | "timeout" | null = null;
  #timers: NodeJS.Timeout[] = [];
  #stderrTail = "";

  constructor(options: DirectTaskOptions) {
    this.id = options.id;
    this.outputFile = options.outputFile;
    this.done = this.#run(options).then((end) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.end = end;
      return end;
    });
  }

  kill(reason: "killed" | "timeout"): Promise<TaskEnd> {
    if (!this.end && !this.#killing) {
      this.#killing = reason;
      this.#signalGroup("SIGTERM");
      this.#timers.push(setTimeout(() => this.#signalGroup("SIGKILL"), KILL_GRACE_MS));
    }
    return this.done;
  }

  killNow(): void {
    this.#killing ??= "killed";
    this.#signalGroup("SIGKILL");
  }

  /** The last of what a stdio task wrote to stderr. */
  get stderrTail(): string {
    return this.#stderrTail;
  }

  /** Writes to a stdio task's stdin; nothing happens once it has exited. */
  write(data: string): void {
    const stdin = this.#child?.stdin;
    if (stdin && !stdin.destroyed && !stdin.writableEnded) stdin.write(data);
  }

  pause(): void {
    this.#child?.stdout?.pause();
    this.#child?.stderr?.pause();
  }

  resume(): void {
    this.#child?.stdout?.resume();
    this.#child?.stderr?.resume();
  }

  async #run(options: DirectTaskOptions): Promise<TaskEnd> {
    let head = "";
    // A stdio program's stdout is its protocol, passed on and never kept; its stderr goes to the (bounded) file and
    // the tail.
    const output = new TaskOutput(
      options.outputFile,
      (text) => {
        if (head.length < DETAIL_CHARS) head += text.slice(0, DETAIL_CHARS - head.length);
        if (options.stdio) this.#stderrTail = (this.#stderrTail + text).slice(-STDERR_TAIL_CHARS);
        else options.onOutput(text);
      },
      options.stdio ? STDERR_FILE_BYTES : Number.POSITIVE_INFINITY,
    );
    const closeFile = async () => {
      const fileError = await output.close();
      if (fileError)
        options.onWarning("could not write the full output file", { file: options.outputFile, err: String(fileError) });
    };

    let child: ChildProcess;
    try {
      child = spawn(options.launch.file, options.launch.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true, // setsid: a session and process group of its own, no controlling terminal
        stdio: [options.stdio ? "pipe" : "ignore", "pipe", "pipe", options.launch.statusFd ? "pipe" : "ignore"],
      });
    } catch (error) {
      await closeFile();
      return this.#startFailure(options, (error as Error).message);
    }
    this.#child = child;
    this.#pgid = child.pid ?? null;
    if (options.timeoutMs !== null) this.#timers.push(setTimeout(() => void this.kill("timeout"), options.timeoutMs));

    // A stdio program that exits while being written to: its stdin's EPIPE is its exit's business, not an error here.
    child.stdin?.on("error", () => {});
    const pipes = [child.stdout!, child.stderr!].map((stream) => {
      const protocol = options.stdio === true && stream === child.stdout;
      const decoder = output.decoder();
      const pass = (text: string) => void (text.length > 0 && options.onOutput(text));
      stream.on("data", (chunk: Buffer) => {
        this.totalBytes += chunk.length;
        if (protocol) pass(decoder.write(chunk));
        else output.write(chunk, decoder);
      });
      return new Promise<void>((resolve) =>
        stream.once("close", () => {
          if (protocol) pass(decoder.end());
          else output.endOf(decoder);
          resolve();
        }),
      );
    });
    let status = "";
    const statusPipe = child.stdio[3] as Readable | null | undefined;
    if (statusPipe) {
      statusPipe.setEncoding("utf8");
      statusPipe.on("data", (chunk: string) => {
        status += chunk;
        this.#initPid ??= initPidOf(status);
      });
      // Its last word ({"exit-code": n}) may be read after the exit event: wait for it with the output.
      pipes.push(new Promise<void>((resolve) => statusPipe.once("close", () => resolve())));
    }

    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>(
      (resolve) => {
        child.once("exit", (code, signal) => resolve({ code, signal }));
        child.once("error", (error) => resolve({ error }));
      },
    );
    if ("error" in exit) {
      await closeFile();
      return this.#startFailure(options, exit.error.message);
    }
    // Whatever the leader left behind in its group (a `cmd &`) ends with it.
    this.#signalGroup("SIGKILL");
    await Promise.race([Promise.all(pipes), sleep(DRAIN_MS)]);
    // A process that left the group (setsid, full-access only) may still hold the pipes: stop listening to it.
    child.stdin?.destroy();
    child.stdout!.destroy();
    child.stderr!.destroy();
    statusPipe?.destroy();
    await this.#waitGroupGone(options);
    await closeFile();

    let reason: EndReason = this.#killing ?? "exited";
    // bwrap reports {"exit-code": n} once the command inside has run; without it the sandbox never started.
    if (!this.#killing && options.launch.statusFd && exit.signal === null && !status.includes('"exit-code"'))
      reason = "sandbox_failed";
    return {
      reason,
      exitCode: exit.code,
      signal: exit.signal,
      detail:
        reason === "sandbox_failed"
          ? `the sandbox could not start: ${head.trim() || `bwrap exited with ${exit.code}`}`
          : null,
    };
  }

  #startFailure(options: DirectTaskOptions, message: string): TaskEnd {
    const what = options.launch.statusFd ? "the sandbox could not start" : `${options.label ?? "bash"} could not start`;
    return {
      reason: options.launch.statusFd ? "sandbox_failed" : "spawn_failed",
      exitCode: null,
      signal: null,
      detail: `${what}: ${options.launch.file}: ${message}`,
    };
  }

  async #waitGroupGone(options: TaskOptions): Promise<void> {
    const pgid = this.#pgid;
    if (pgid === null) return;
    // Repeat the SIGKILL while waiting: it also catches a member forked while the first one was on its way.
    const repeat = setInterval(() => this.#signalGroup("SIGKILL"), 50);
    const gone = await whenGroupGone(pgid, GONE_WAIT_MS);
    clearInterval(repeat);
    if (gone)
      this.#groupGone = true; // never signal this pgid again: the number may be reused
    else options.onWarning("process group still has members after SIGKILL", { pgid });
  }

  #signalGroup(signal: NodeJS.Signals): void {
    if (this.#pgid === null || this.#groupGone) return;
    const child = this.#child;
    // A sandbox ends by its init's SIGKILL, never a gentler signal (bwrap-init.ts): a program that exits on SIGTERM
    // lets the init exit on its own, and bwrap then exits without reaping it.
    if (this.#initPid !== null && child && child.exitCode === null && child.signalCode === null)
      return killSandbox(child, this.#initPid);
    try {
      process.kill(-this.#pgid, signal);
    } catch {
      // ESRCH: nothing left in the group
    }
  }
}
