// A session's lock file in the state dir: one host process has a session at a time. The file holds its owner's pid
// and start time; a lock whose owner is gone (its pid dead, or reused by a process that started at another time) is
// stale and taken over.
import { readFileSync } from "node:fs";
import { readFile, rm, stat, writeFile } from "node:fs/promises";
import type { RequestError } from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { Logger } from "../../logger.js";
import { hostError } from "../../request-errors.js";

/** A lock file that does not parse yet may be one another host is writing this instant. */
const UNREADABLE_LOCK_STALE_MS = 2000;

const LockOwner = z.object({ pid: z.number().int().positive(), started: z.string().nullable() });
type LockOwner = z.infer<typeof LockOwner>;

export class LockFiles {
  readonly #logger: Logger;
  readonly #me: LockOwner = { pid: process.pid, started: processStartAtBoot(process.pid) };

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Takes this process's lock at path for the session; refused while a live process holds it. */
  async take(sessionId: string, path: string): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        await writeFile(path, JSON.stringify(this.#me), { flag: "wx" });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw hostError("STORE_FAILED", `cannot lock session ${sessionId}: ${(error as Error).message}`, {
            sessionId,
          });
        }
      }
      const owner = await readOwner(path);
      if (owner === "fresh") throw busy(sessionId, "another host process is opening it right now");
      if (owner && (await ownerAlive(owner, this.#me))) {
        if (owner.pid === this.#me.pid)
          throw hostError("SESSION_BUSY", `session ${sessionId} is being opened by another request in this host`, {
            sessionId,
          });
        throw busy(
          sessionId,
          `it is open in another acp-session-host process (pid ${owner.pid}); close it there first`,
        );
      }
      this.#logger.info({ sessionId, owner }, "stale session lock taken over: its owner is gone");
      await rm(path, { force: true });
    }
    throw busy(sessionId, "its lock keeps changing hands");
  }

  /** Drops the lock at path if it is this process's (and only then). */
  async release(path: string): Promise<void> {
    const owner = await readOwner(path);
    if (owner && owner !== "fresh" && owner.pid === this.#me.pid && owner.started === this.#me.started)
      await rm(path, { force: true });
  }
}

async function readOwner(path: string): Promise<LockOwner | "fresh" | null> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch {
    return null;
  }
  try {
    return LockOwner.parse(JSON.parse(text));
  } catch {
    // An empty or torn lock: being written right now, or left by a crash between create and write.
    try {
      const age = Date.now() - (await stat(path)).mtimeMs;
      return age < UNREADABLE_LOCK_STALE_MS ? "fresh" : null;
    } catch {
      return null;
    }
  }
}

async function ownerAlive(owner: LockOwner, me: LockOwner): Promise<boolean> {
  if (owner.pid === me.pid) return owner.started === me.started;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  // The pid is taken; by the owner only if that process started when the owner did.
  const started = startField(await readFile(`/proc/${owner.pid}/stat`, "utf8").catch(() => null));
  return owner.started === null || started === null || started === owner.started;
}

/** This process's start time, read once when the store is made (the host is booting, nothing waits on it). */
function processStartAtBoot(pid: number): string | null {
  try {
    return startField(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return null;
  }
}

/** The start time field of a /proc/<pid>/stat line (clock ticks since boot), or null where there is none. */
function startField(stat: string | null): string | null {
  return stat === null ? null : (stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null);
}

function busy(sessionId: string, why: string): RequestError {
  return hostError("LOCKED_ELSEWHERE", `session ${sessionId} cannot be opened: ${why}`, { sessionId });
}
