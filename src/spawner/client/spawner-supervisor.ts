// Keeps a spawner process running for the host's whole life: if it dies, commands in flight fail (their workers'
// connections close), and a new spawner is started within a second (backing off while it keeps dying); the
// sessions' live workers are then given fresh grants, so the next command in every session runs. Background tasks
// died with the old spawner; a session that reads or kills one is told it is gone with it (src/spawner/task-ids.ts).
import type { SpawnerGrant } from "../../protocol/port.js";
import type { SandboxStatus, SpawnerOptionsInput } from "../../protocol/spawner-control.js";
import type { Logger } from "../../logger.js";
import { SpawnerClient } from "./spawner-client.js";

const FIRST_RESTART_MS = 100;
const MAX_RESTART_MS = 10_000;
/** A spawner that lived this long resets the backoff. */
const STABLE_MS = 60_000;

export class SpawnerSupervisor {
  readonly #options: SpawnerOptionsInput;
  readonly #logger: Logger;
  readonly #onRestart: Array<() => void> = [];
  #current: SpawnerClient | null;
  #startedAt = performance.now();
  #delayMs = FIRST_RESTART_MS;
  #stopping = false;
  #restarts = 0;

  private constructor(first: SpawnerClient, options: SpawnerOptionsInput, logger: Logger) {
    this.#current = first;
    this.#options = options;
    this.#logger = logger;
    this.#watch(first);
  }

  static async start(options: SpawnerOptionsInput, logger: Logger): Promise<SpawnerSupervisor> {
    return new SpawnerSupervisor(await SpawnerClient.start(options, logger), options, logger);
  }

  /** The running spawner's pid (null between a death and its restart). */
  get pid(): number | null {
    return this.#current?.alive ? this.#current.pid : null;
  }

  /** The running spawner's socket (its directory is hidden from every sandbox); null between a death and a restart. */
  get socketPath(): string | null {
    return this.#current?.socketPath ?? null;
  }

  get sandbox(): SandboxStatus {
    return this.#current?.sandbox ?? { ok: false, detail: "the spawner is restarting" };
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** Called after each restart (the host gives live workers fresh grants then). */
  onRestart(listener: () => void): void {
    this.#onRestart.push(listener);
  }

  grant(sessionId: string, cwd: string, outputDir: string | null = null, token?: string): SpawnerGrant | null {
    return this.#current?.grant(sessionId, cwd, outputDir, token) ?? null;
  }

  workspace(sessionId: string, cwd: string, outputDir: string | null = null): void {
    this.#current?.workspace(sessionId, cwd, outputDir);
  }

  endSession(sessionId: string): Promise<number> {
    return this.#current?.endSession(sessionId) ?? Promise.resolve(0);
  }

  async shutdown(): Promise<void> {
    this.#stopping = true;
    await this.#current?.shutdown();
  }

  #watch(client: SpawnerClient): void {
    void client.exited.then(() => {
      if (this.#stopping || client.stopping || this.#current !== client) return;
      this.#current = null;
      if (performance.now() - this.#startedAt > STABLE_MS) this.#delayMs = FIRST_RESTART_MS;
      this.#logger.error(
        { spawnerPid: client.pid, restartInMs: this.#delayMs },
        "spawner exited: commands in flight failed; starting a new one",
      );
      setTimeout(() => void this.#restart(), this.#delayMs).unref();
      this.#delayMs = Math.min(MAX_RESTART_MS, this.#delayMs * 2);
    });
  }

  async #restart(): Promise<void> {
    if (this.#stopping) return;
    try {
      const client = await SpawnerClient.start(this.#options, this.#logger);
      if (this.#stopping) return void (await client.shutdown());
      this.#current = client;
      this.#startedAt = performance.now();
      this.#restarts++;
      this.#watch(client);
      this.#logger.info({ spawnerPid: client.pid, restarts: this.#restarts }, "spawner restarted");
      for (const listener of this.#onRestart) listener();
    } catch (error) {
      this.#logger.error({ err: error, restartInMs: this.#delayMs }, "spawner did not restart; trying again");
      setTimeout(() => void this.#restart(), this.#delayMs).unref();
      this.#delayMs = Math.min(MAX_RESTART_MS, this.#delayMs * 2);
    }
  }
}
