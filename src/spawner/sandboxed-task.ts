// A sandboxed command: started by the exec helper in its session's long-lived sandbox. Its output goes to a file the
// spawner created and holds open (so whatever the command does to the path, the spawner reads only that file), and
// is read as it grows; its group is signalled through the helper, which knows it by the sandbox's pid numbering.
import { constants, watch, type FSWatcher } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { join } from "node:path";
import type { TaskEnd } from "../protocol/spawner-messages.js";
import type { SessionSandbox } from "./session-sandbox.js";
import { KILL_GRACE_MS, type Task, type TaskOptions } from "./task.js";
import { TaskOutput } from "./task-output.js";

const READ_BYTES = 64 * 1024;
/**
 * After SIGKILL, how long the helper may take to report the end (its own wait for the group takes up to about 3 s)
 * before the sandbox is taken for broken.
 */
const REPORT_WAIT_MS = 6000;

type Outcome = { kind: "exit"; status: number; stuck: boolean } | { kind: "lost"; detail: string; started: boolean };

export class SandboxedTask implements Task {
  readonly id: string;
  readonly outputFile: string;
  readonly done: Promise<TaskEnd>;
  end: TaskEnd | null = null;
  readonly #sandbox: SessionSandbox;
  #output: TaskOutput | null = null;
  #pgid: number | null = null;
  #pendingSignal: "TERM" | "KILL" | null = null;
  #killing: "killed" | "timeout" | null = null;
  #timers: NodeJS.Timeout[] = [];
  #paused = false;
  #resumed: (() => void) | null = null;
  #reading: Promise<void> | null = null;
  #grew = false;
  #position = 0;

  constructor(options: TaskOptions & { sandbox: SessionSandbox; command: string }) {
    this.id = options.id;
    this.outputFile = options.outputFile;
    this.#sandbox = options.sandbox;
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
      this.#signal("TERM");
      this.#timers.push(setTimeout(() => this.#signal("KILL"), KILL_GRACE_MS));
      // A helper that has not reported the end by then is broken: its sandbox ends, and everything in it.
      this.#timers.push(setTimeout(() => void this.#sandbox.end(), KILL_GRACE_MS + REPORT_WAIT_MS));
    }
    return this.done;
  }

  killNow(): void {
    this.#killing ??= "killed";
    this.#sandbox.killNow();
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    this.#resumed?.();
    this.#resumed = null;
    this.#pump();
  }

  async #run(options: TaskOptions & { command: string }): Promise<TaskEnd> {
    const notReady = await this.#sandbox.ready;
    if (notReady) return { reason: "sandbox_failed", exitCode: null, signal: null, detail: notReady };
    const outPath = join(this.#sandbox.execDir, `${this.id}.out`);
    let file: FileHandle;
    try {
      // O_EXCL and O_NOFOLLOW: the file is this one, never something a command put at that path before.
      file = await open(outPath, constants.O_RDONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    } catch (error) {
      return { reason: "sandbox_failed", exitCode: null, signal: null, detail: `the sandbox could not take the command: ${(error as Error).message}` };
    }
    const output = new TaskOutput(options.outputFile, options.onOutput);
    this.#output = output;
    const decoder = output.decoder();
    const read = async () => {
      do {
        this.#grew = false;
        for (;;) {
          if (this.#paused) await new Promise<void>((resolve) => (this.#resumed = resolve));
          const buffer = Buffer.allocUnsafe(READ_BYTES);
          const { bytesRead } = await file.read(buffer, 0, READ_BYTES, this.#position);
          if (bytesRead === 0) break;
          this.#position += bytesRead;
          output.write(buffer.subarray(0, bytesRead), decoder);
        }
      } while (this.#grew);
    };
    this.#pump = () => {
      this.#grew = true;
      this.#reading ??= read().finally(() => (this.#reading = null));
    };
    let watcher: FSWatcher | null = null;
    try {
      watcher = watch(outPath, () => this.#pump());
      watcher.on("error", () => {});
    } catch {
      // Gone already (the command removed it): its output is read at the end through the open file.
    }
    if (options.timeoutMs !== null) this.#timers.push(setTimeout(() => void this.kill("timeout"), options.timeoutMs));

    const outcome = await new Promise<Outcome>((resolve) =>
      this.#sandbox.run(this.id, options.command, {
        onPid: (pgid) => {
          this.#pgid = pgid;
          if (this.#pendingSignal) this.#signal(this.#pendingSignal);
        },
        onExit: (status, stuck) => resolve({ kind: "exit", status, stuck }),
        onLost: (detail, started) => resolve({ kind: "lost", detail, started }),
      }),
    );
    this.#pgid = null; // its number may be the next command's
    watcher?.close();
    this.#pump();
    await this.#reading;
    output.endOf(decoder);
    await file.close();
    void unlink(outPath).catch(() => {});
    const fileError = await output.close();
    if (fileError) options.onWarning("could not write the full output file", { file: options.outputFile, err: String(fileError) });

    if (outcome.kind === "lost") {
      if (!outcome.started) return { reason: "sandbox_failed", exitCode: null, signal: null, detail: outcome.detail };
      return { reason: this.#killing ?? "killed", exitCode: null, signal: null, detail: outcome.detail };
    }
    if (outcome.stuck) options.onWarning("process group still has members after SIGKILL", { taskId: this.id });
    const signal = outcome.status > 128 ? signalName(outcome.status - 128) : null;
    return { reason: this.#killing ?? "exited", exitCode: signal ? null : outcome.status, signal, detail: null };
  }

  #pump: () => void = () => {};

  #signal(signal: "TERM" | "KILL"): void {
    if (this.end) return;
    if (this.#pgid === null) this.#pendingSignal = signal;
    else this.#sandbox.signal(this.#pgid, signal);
  }
}

function signalName(number: number): string | null {
  for (const [name, value] of Object.entries(osConstants.signals)) if (value === number) return name;
  return null;
}
