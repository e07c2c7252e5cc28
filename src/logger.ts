// Structured JSON logs on stderr: stdout carries protocol frames only.
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level }, pino.destination({ fd: 2, sync: true }));
}

/** Keys pino writes itself (or a child binds): a field of the same name would appear twice in one line. */
const RESERVED = new Set(["level", "time", "pid", "hostname", "msg", "sessionId"]);

/** Fields from elsewhere (a worker's log event) with any reserved name renamed, e.g. pid → fieldPid. */
export function foreignFields(data: Record<string, unknown>): Record<string, unknown> {
  let renamed: Record<string, unknown> | null = null;
  for (const key of Object.keys(data)) {
    if (!RESERVED.has(key)) continue;
    renamed ??= { ...data };
    delete renamed[key];
    renamed[`field${key[0]!.toUpperCase()}${key.slice(1)}`] = data[key];
  }
  return renamed ?? data;
}
