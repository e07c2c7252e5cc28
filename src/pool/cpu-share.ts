// The share of the machine's cores the host process used between two readings: every thread of it (the main thread,
// session workers, V8's helpers), from process.cpuUsage(), which reads no file.
import { availableParallelism } from "node:os";

export interface CpuReading {
  /** User + system CPU time of the process so far, µs. */
  cpuUs: number;
  atMs: number;
}

export function processCpu(): CpuReading {
  const { user, system } = process.cpuUsage();
  return { cpuUs: user + system, atMs: performance.now() };
}

export class CpuShare {
  #last: CpuReading;

  constructor(
    readonly read: () => CpuReading = processCpu,
    readonly cores: number = availableParallelism(),
  ) {
    this.#last = read();
  }

  /** The share of all cores used since the last call (or since it was made): 0 idle, 1 every core busy. */
  sinceLast(): number {
    const now = this.read();
    const elapsedUs = (now.atMs - this.#last.atMs) * 1000;
    const usedUs = now.cpuUs - this.#last.cpuUs;
    this.#last = now;
    return elapsedUs > 0 ? usedUs / (elapsedUs * this.cores) : 0;
  }
}
