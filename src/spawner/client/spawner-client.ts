// The main thread's handle on the spawner process (src/spawner): started once at boot, before the host grows, so
// that no command is ever spawned from the host process itself. The main thread grants each session worker a
// one-time token for its own session, ends a session's commands when the session closes, and shuts the spawner
// down at teardown. If the host dies without a word, the spawner sees its stdin close and ends every command.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { jsonLine, readJsonLines } from "../../protocol/ndjson-lines.js";
import type { SpawnerGrant } from "../../protocol/port.js";
import {
  ControlMessage,
  type ControlRequest,
  type SandboxStatus,
  type SpawnerOptionsInput,
} from "../../protocol/spawner-control.js";
import type { Logger } from "../../logger.js";

// The compiled spawner, whether this module runs compiled (dist/src/spawner/client) or from source under a test runner.
const SPAWNER_ENTRY = fileURLToPath(
  new URL(import.meta.url.includes("/dist/") ? "../main.js" : "../../../dist/src/spawner/main.js", import.meta.url),
);
const READY_TIMEOUT_MS = 10_000;
const EXIT_TIMEOUT_MS = 5_000;

export class SpawnerClient {
  readonly socketPath: string;
  readonly outputRoot: string;
  readonly sandbox: SandboxStatus;
  readonly pid: number;
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  /** Resolves when the process has exited, asked to or not. */
  readonly exited: Promise<void>;
  readonly #pending = new Map<number, (killed: number) => void>();
  #nextId = 1;
  #alive = true;
  #stopping = false;

  private constructor(child: ChildProcess, ready: Extract<ControlMessage, { type: "ready" }>, exited: Promise<void>) {
    this.#child = child;
    this.pid = child.pid!;
    this.socketPath = ready.socketPath;
    this.outputRoot = ready.outputRoot;
    this.sandbox = ready.sandbox;
    this.#exited = exited.then(() => {
      this.#alive = false;
      for (const settle of this.#pending.values()) settle(0);
      this.#pending.clear();
    });
    this.exited = this.#exited;
  }

  static async start(options: SpawnerOptionsInput, log: Logger): Promise<SpawnerClient> {
    // A process group of its own: a signal to the host's group (a terminal's ^C, a supervisor's kill -9 of the group)
    // must not take the spawner down before it has ended the commands. Its life is tied to the host by its stdin.
    const child = spawn(process.execPath, [SPAWNER_ENTRY, JSON.stringify(options)], {
      stdio: ["pipe", "pipe", "inherit"],
      detached: true,
    });
    child.stdin!.on("error", () => {});
    const exited = once(child, "exit").then(() => {});
    let client: SpawnerClient | null = null;
    const ready = new Promise<Extract<ControlMessage, { type: "ready" }>>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`spawner not ready within ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      void exited.then(() => reject(new Error("spawner exited before it was ready")));
      readJsonLines(
        child.stdout!,
        (value) => {
          const parsed = ControlMessage.safeParse(value);
          if (!parsed.success) {
            log.error({ issue: parsed.error.issues[0]?.message }, "invalid message from the spawner dropped");
            return;
          }
          const message = parsed.data;
          if (message.type === "ready") {
            clearTimeout(timer);
            resolve(message);
          } else if (client) client.#settle(message.id, message.killed);
        },
        (error) => log.error({ err: error.message }, "spawner control channel unreadable"),
      );
    });
    try {
      client = new SpawnerClient(child, await ready, exited);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
    return client;
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Whether it is ending because it was asked to (shutdown). */
  get stopping(): boolean {
    return this.#stopping;
  }

  /**
   * A one-time channel for one worker of this session; null when the spawner is gone. The token is random (a test
   * may pass its own, to have a worker connect before the grant reaches the spawner).
   */
  grant(
    sessionId: string,
    cwd: string,
    outputDir: string | null = null,
    token = randomBytes(32).toString("base64url"),
  ): SpawnerGrant | null {
    if (!this.#alive || this.#stopping) return null;
    this.#send({ op: "grant", sessionId, token, cwd, outputDir });
    return { socketPath: this.socketPath, token };
  }

  /** Tells the spawner the session's workspace: every other session's next command runs in a sandbox that masks it. */
  workspace(sessionId: string, cwd: string, outputDir: string | null = null): void {
    if (this.#alive && !this.#stopping) this.#send({ op: "workspace", sessionId, cwd, outputDir });
  }

  /**
   * Ends every command of the session (background tasks included); resolves with how many were running. Once the
   * spawner is shutting down, at once: the shutdown ends every session's commands.
   */
  endSession(sessionId: string): Promise<number> {
    if (!this.#alive || this.#stopping) return Promise.resolve(0);
    const id = this.#nextId++;
    const ended = new Promise<number>((resolve) => this.#pending.set(id, resolve));
    this.#send({ op: "end_session", id, sessionId });
    return ended;
  }

  /** Ends every command and the spawner; SIGKILL if it does not exit in time. */
  async shutdown(): Promise<void> {
    if (!this.#alive) return;
    this.#stopping = true;
    this.#send({ op: "shutdown", id: this.#nextId++ });
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), EXIT_TIMEOUT_MS);
    await this.#exited;
    clearTimeout(timer);
  }

  #send(request: ControlRequest): void {
    this.#child.stdin!.write(jsonLine(request));
  }

  #settle(id: number, killed: number): void {
    this.#pending.get(id)?.(killed);
    this.#pending.delete(id);
  }
}
