// The spawner's log: JSON lines on stderr (inherited from the host, so they land in the host's log stream),
// with pino's level numbers. Synchronous writes: the spawner may log right before it exits.
import { writeSync } from "node:fs";

const LEVELS = { info: 30, warn: 40, error: 50 } as const;

export type SpawnerLog = (level: keyof typeof LEVELS, msg: string, data?: Record<string, unknown>) => void;

export const log: SpawnerLog = (level, msg, data = {}) => {
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
