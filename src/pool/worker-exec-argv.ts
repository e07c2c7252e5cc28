// The node options a session worker starts with: this process's own (--cpu-prof, --inspect, --enable-source-maps …)
// without its V8 options (--max-old-space-size, --stack-size …). Those are the process's: a Worker given one throws,
// and a host run as `node --max-old-space-size=8192 cli.js` would start no session worker at all. A worker's heap is
// sized by the pool's resourceLimits instead.
import { Worker } from "node:worker_threads";

/** Always refused by a Worker: its presence makes the probe throw before any thread starts. */
const REFUSED = "--max-old-space-size=1";
const LISTED = /invalid execArgv flags: (.*)$/;

/** `execArgv` less what a Worker refuses (all of it if the refusal cannot be read). */
export function workerExecArgv(execArgv: readonly string[] = process.execArgv): string[] {
  if (execArgv.length === 0) return [];
  try {
    // Throws before any thread starts: the refused flag is always there (were it taken, so would every flag be).
    void new Worker("", { eval: true, execArgv: [...execArgv, REFUSED] }).terminate();
    return [...execArgv];
  } catch (error) {
    const refused = LISTED.exec((error as Error).message)?.[1]?.split(", ");
    if ((error as NodeJS.ErrnoException).code !== "ERR_WORKER_INVALID_EXEC_ARGV" || !refused?.includes(REFUSED))
      return [];
    return execArgv.filter((arg) => !refused.includes(arg));
  }
}
