// A sandboxed command: started by the exec helper in its session's long-lived sandbox. Its output goes to a file the
// spawner created and holds open (so whatever the command does to the path, the spawner reads only that file), and
// is read as it grows; its group is signalled through the helper, which knows it by the sandbox's pid numbering.
import { constants, watch, type FSWatcher } from "node:fs";
import { copyFile, open, unlink, type FileHandle } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { join } from "node:path";
import type { StringDecoder } from "node:string_decoder";
import type { TaskEnd } from "../protocol/spawner-replies.js";
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
  /** Set once only the output's tail is wanted (skipToTail): its length in bytes. */
  #tailOnly: number | null = null;

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

  skipToTail(tailBytes: number): void {
    this.#tailOnly ??= tailBytes;
  }

  async #run(options: TaskOptions & { command: string }): Promise<TaskEnd> {
    const notReady = await this.#sandbox.ready;
    if (notReady) return { reason: "sandbox_failed", exitCode: null, signal: null, detail: notReady };
    const outPath = join(this.#sandbox.execDir, `${this.id}.out`);
    let file: FileHandle;
    try {
      // O_EXCL and O_NOFOLLOW: the file is this one, never something a command put at that path before.
      file = await open(
        outPath,
        constants.O_RDONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
    } catch (error) {
      return {
        reason: "sandbox_failed",
        exitCode: null,
        signal: null,
        detail: `the sandbox could not take the command: ${(error as Error).message}`,
      };
    }
    const output = new TaskOutput(options.outputFile, options.onOutput);
    this.#output = output;
    const decoder = output.decoder();
    const read = async () => {
      do {
        this.#grew = false;
        for (;;) {
          if (this.#paused) await new Promise<void>((resolve) => (this.#resumed = resolve));
          if (this.#tailOnly !== null) return;
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
    let fileError: Error | null;
    if (this.#tailOnly === null) {
      output.endOf(decoder);
      await file.close();
      fileError = await output.close();
    } else {
      fileError = await this.#finishTailOnly(file, output, decoder, options.outputFile, this.#tailOnly);
      await file.close();
    }
    void unlink(outPath).catch(() => {});
    if (fileError)
      options.onWarning("could not write the full output file", { file: options.outputFile, err: String(fileError) });

    if (outcome.kind === "lost") {
      if (!outcome.started) return { reason: "sandbox_failed", exitCode: null, signal: null, detail: outcome.detail };
      return { reason: this.#killing ?? "killed", exitCode: null, signal: null, detail: outcome.detail };
    }
    if (outcome.stuck) options.onWarning("process group still has members after SIGKILL", { taskId: this.id });
    const signal = outcome.status > 128 ? signalName(outcome.status - 128) : null;
    return { reason: this.#killing ?? "exited", exitCode: signal ? null : outcome.status, signal, detail: null };
  }

  #pump: () => void = () => {};

  /**
   * Output read only in part: its last tailBytes are read from the end (from the first whole character), and the
   * output file is copied from the held file in the kernel (/proc/self/fd names that file, whatever the command did
   * to its path), so the bytes nobody reads cost no read, write or decode here.
   */
  async #finishTailOnly(
    file: FileHandle,
    output: TaskOutput,
    decoder: StringDecoder,
    outputFile: string,
    tailBytes: number,
  ): Promise<Error | null> {
    const { size } = await file.stat();
    const start = Math.max(this.#position, size - tailBytes);
    const tail = Buffer.alloc(Math.max(0, size - start));
    const { bytesRead } = await file.read(tail, 0, tail.length, start);
    const bytes = tail.subarray(0, bytesRead);
    let text: string;
    // Straight on from what was read: the decoder holds the start of a character split there.
    if (start === this.#position) text = decoder.write(bytes) + decoder.end();
    else {
      // Cut from the middle: from a character's first byte (UTF-8 continuation bytes are 10xxxxxx).
      let first = 0;
      while (first < bytes.length && (bytes[first]! & 0xc0) === 0x80) first++;
      text = bytes.subarray(first).toString("utf8");
    }
    output.skipped(size, text);
    const fileError = await output.close();
    if (fileError) return fileError;
    return copyFile(`/proc/self/fd/${file.fd}`, outputFile).then(
      () => null,
      (error: Error) => error,
    );
  }

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
