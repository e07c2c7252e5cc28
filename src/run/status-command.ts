// `acp-session-host status --connect URL [--json]`: a running host's `_host/status`, every page, as a table (or JSON).
// The host must be listening (--listen); the token comes from ACP_SESSION_HOST_TOKEN. A stdio host answers
// `_host/status` to the client that spawned it (HostClient.status()).
import { parseArgs } from "node:util";
import { HostClient } from "../client/index.js";
import { ConfigError } from "../host-options.js";
import type { HostStatus, SessionStatus } from "../protocol/host-status.js";

export async function statusCommand(argv: string[]): Promise<string> {
  let values: { connect?: string; json?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { connect: { type: "string" }, json: { type: "boolean" } },
      strict: true,
    }));
  } catch (error) {
    throw new ConfigError(`status: ${(error as Error).message}`);
  }
  if (!values.connect)
    throw new ConfigError(
      "status needs --connect URL (a host started with --listen; the token from ACP_SESSION_HOST_TOKEN)",
    );
  const token = process.env.ACP_SESSION_HOST_TOKEN;
  const client = await HostClient.connect(values.connect, token ? { token } : {});
  try {
    const first = await client.status({ pageSize: 500 });
    const rows = [...first.sessionRows];
    for (let cursor = first.nextCursor; cursor;) {
      const page = await client.status({ pageSize: 500, cursor });
      rows.push(...page.sessionRows);
      cursor = page.nextCursor;
    }
    return values.json
      ? `${JSON.stringify({ ...first, sessionRows: rows, nextCursor: undefined })}\n`
      : table(first, rows);
  } finally {
    await client.dispose();
  }
}

function table(status: HostStatus, rows: SessionStatus[]): string {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const head =
    `pid ${status.pid} · up ${(status.uptimeMs / 1000).toFixed(0)} s · sessions ${status.sessions.live} (${status.sessions.busy} busy) · ` +
    `workers ${status.threads.workers} (${status.threads.standby} standby) · RSS ${mib(status.memory.rssBytes)} MiB · ` +
    `event-loop lag p99 ${status.eventLoopDelayMs.p99.toFixed(1)} ms\n`;
  const lines = rows.map((row) =>
    [
      row.sessionId,
      row.state.padEnd(10),
      String(row.threadId ?? "-").padStart(6),
      (row.workerActiveMs === null ? "-" : row.workerActiveMs.toFixed(0)).padStart(9),
      (row.heapUsedMiB === null ? "-" : row.heapUsedMiB.toFixed(1)).padStart(8),
      String(row.turns).padStart(6),
      (row.idleMs / 1000).toFixed(1).padStart(8),
      row.tokens ? `${row.tokens.prompt}/${row.tokens.completion}/${row.tokens.cached}` : "-",
    ].join("  "),
  );
  const header = [
    "session".padEnd(36),
    "state".padEnd(10),
    "thread",
    "active ms",
    "heap MiB",
    " turns",
    "  idle s",
    "tokens prompt/completion/cached",
  ].join("  ");
  return `${head}${header}\n${lines.join("\n")}${lines.length ? "\n" : ""}`;
}
