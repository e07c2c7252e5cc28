// Many stored sessions written straight to a state dir, as a host leaves them (a header line and a sidecar each), for
// the scenarios that measure what a host does over many: session/list, the dashboard's first page.
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SIDECAR_FORMAT, sessionPaths, sessionsDir, type SessionSidecar } from "../../src/protocol/log/session-log.js";
import { logHeader } from "./session-logs.js";

/** count sessions of no tenant, the n-th in cwds[n % cwds.length], each updated a second after the one before. */
export function writeStoredSessions(stateDir: string, count: number, cwds: readonly string[]): void {
  mkdirSync(sessionsDir(stateDir), { recursive: true });
  mkdirSync(join(stateDir, "deleted"), { recursive: true });
  const base = Date.UTC(2026, 0, 1);
  for (let n = 0; n < count; n++) {
    const id = randomUUID();
    const cwd = cwds[n % cwds.length]!;
    const createdAt = new Date(base + n * 1000).toISOString();
    const paths = sessionPaths(stateDir, id);
    writeFileSync(paths.log, `${JSON.stringify(logHeader(id, cwd, createdAt))}\n`);
    const sidecar: SessionSidecar = {
      format: SIDECAR_FORMAT,
      sessionId: id,
      cwd,
      title: `session ${n}`,
      createdAt,
      updatedAt: new Date(base + n * 1000 + 500).toISOString(),
      turns: 3,
    };
    writeFileSync(paths.sidecar, JSON.stringify(sidecar));
  }
}
