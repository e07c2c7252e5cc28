// A full-access command: bash started by the spawner itself, unconfined, in a session and process group of its own.
// A process that left the group (setsid) is beyond reach, which is what full-access means.
import { spawn, type ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import type { TaskEnd } from "../protocol/spawner-messages.js";
import { whenGroupGone } from "./group-watch.js";
import type { Launch } from "./sandbox.js";
import { KILL_GRACE_MS, type Task, type TaskOptions } from "./task.js";
import { TaskOutput } from "./task-output.js";

/** After the leader exits, how long its pipes may take to deliver the last output. */
const DRAIN_MS = 2000;
const GONE_WAIT_MS = 3000;

export class DirectTask implements Task {
  readonly id: string;
  readonly outputFile: string;
  readonly done: Promise<TaskEnd>;
  end: TaskEnd | null = null;
  #output: TaskOutput | null = null;
  #child: ChildProcess | null = null;
  #pgid: number | null = null;
  #groupGone = false;
  #killing: "killed" | "timeout" | null = null;
  #timers: NodeJS.Timeout[] = [];

  constructor(options: TaskOptions & { launch: Launch; cwd: string; env: NodeJS.ProcessEnv }) {
    this.id = options.id;
    this.outputFile = options.outputFile;
    this.done = this.#run(options).then((end) => {
      for (const timer of this.#timers) clearTimeout(timer);
      this.end = end;
      return end;
    });
  }

  get totalBytes(): number {
    return this.#output?.totalBytes ?? 0;
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

  pause(): void {
    this.#child?.stdout?.pause();
    this.#child?.stderr?.pause();
  }

  resume(): void {
    this.#child?.stdout?.resume();
    this.#child?.stderr?.resume();
  }

  async #run(options: TaskOptions & { launch: Launch; cwd: string; env: NodeJS.ProcessEnv }): Promise<TaskEnd> {
    const output = new TaskOutput(options.outputFile, options.onOutput);
    this.#output = output;
    let child: ChildProcess;
    try {
      child = spawn(options.launch.file, options.launch.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true, // setsid: a session and process group of its own, no controlling terminal
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      await output.close();
      return spawnFailure(options.launch, (error as Error).message);
    }
    this.#child = child;
    this.#pgid = child.pid ?? null;
    if (options.timeoutMs !== null) this.#timers.push(setTimeout(() => void this.kill("timeout"), options.timeoutMs));

    const pipes = [child.stdout!, child.stderr!].map((stream) => {
      const decoder = output.decoder();
      stream.on("data", (chunk: Buffer) => output.write(chunk, decoder));
      return new Promise<void>((resolve) =>
        stream.once("close", () => {
          output.endOf(decoder);
          resolve();
        }),
      );
    });

    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", (error) => resolve({ error }));
    });
    if ("error" in exit) {
      await output.close();
      return spawnFailure(options.launch, exit.error.message);
    }
    // Whatever the leader left behind in its group (a `cmd &`) ends with it.
    this.#signalGroup("SIGKILL");
    await Promise.race([Promise.all(pipes), sleep(DRAIN_MS)]);
    // A process that left the group (setsid) may still hold the pipes: stop listening to it.
    child.stdout!.destroy();
    child.stderr!.destroy();
    await this.#waitGroupGone(options);
    const fileError = await output.close();
    if (fileError) options.onWarning("could not write the full output file", { file: options.outputFile, err: String(fileError) });
    return { reason: this.#killing ?? "exited", exitCode: exit.code, signal: exit.signal, detail: null };
  }

  async #waitGroupGone(options: TaskOptions): Promise<void> {
    const pgid = this.#pgid;
    if (pgid === null) return;
    // Repeat the SIGKILL while waiting: it also catches a member forked while the first one was on its way.
    const repeat = setInterval(() => this.#signalGroup("SIGKILL"), 50);
    const gone = await whenGroupGone(pgid, GONE_WAIT_MS);
    clearInterval(repeat);
    if (gone) this.#groupGone = true; // never signal this pgid again: the number may be reused
    else options.onWarning("process group still has members after SIGKILL", { pgid });
  }

  #signalGroup(signal: NodeJS.Signals): void {
    if (this.#pgid === null || this.#groupGone) return;
    try {
      process.kill(-this.#pgid, signal);
    } catch {
      // ESRCH: nothing left in the group
    }
  }
}

function spawnFailure(launch: Launch, message: string): TaskEnd {
  return { reason: "spawn_failed", exitCode: null, signal: null, detail: `bash could not start: ${launch.file}: ${message}` };
}
