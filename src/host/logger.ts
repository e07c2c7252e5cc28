// Structured JSON logs on stderr: stdout carries protocol frames only.
import { pino, type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({ level }, pino.destination({ fd: 2, sync: true }));
}
