// The spawner's log: JSON lines on stderr (inherited from the host, so they land in the host's log stream),
// with pino's level numbers, at the host's --log-level. Synchronous writes: the spawner may log right before it exits.
import { writeSync } from "node:fs";
import type { SpawnerLogLevel } from "../protocol/spawner-control.js";

const LEVELS = { info: 30, warn: 40, error: 50 } as const;
/** pino's number for each level --log-level names: a line is written when its level's number reaches it. */
const THRESHOLDS: Record<SpawnerLogLevel, number> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Infinity,
};

export type SpawnerLog = (level: keyof typeof LEVELS, msg: string, data?: Record<string, unknown>) => void;

export function spawnerLog(threshold: SpawnerLogLevel): SpawnerLog {
  return (level, msg, data = {}) => {
    if (LEVELS[level] < THRESHOLDS[threshold]) return;
    const line = JSON.stringify({
      level: LEVELS[level],
      time: Date.now(),
      pid: process.pid,
      name: "spawner",
      ...data,
      msg,
    });
    try {
      writeSync(2, `${line}\n`);
    } catch {
      // stderr is gone with the host; nothing to tell
    }
  };
}
