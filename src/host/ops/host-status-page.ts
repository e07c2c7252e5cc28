// `_host/status`: the host's figures and a page of session rows, ordered by session id (a cursor is the last id of
// the previous page). A tenant sees only its own sessions.
import type { HostStatus, HostStatusParams } from "../../protocol/host-status.js";
import { invalidParams } from "../../request-errors.js";
import type { OpsHost } from "./ops-host.js";
import type { HostStatsMonitor } from "./host-stats-monitor.js";
import type { Peer } from "../connection/peer.js";

export async function hostStatus(
  host: Pick<OpsHost, "sessions" | "usage" | "gateway">,
  peer: Peer,
  stats: HostStatsMonitor,
  params: HostStatusParams,
): Promise<HostStatus> {
  const after = params.cursor === null ? null : decodeCursor(params.cursor);
  const ids = [...host.sessions.values()]
    .filter((session) => peer.sees(session.tenant))
    .map((session) => session.id)
    .sort();
  const start = after === null ? 0 : ids.findIndex((id) => id > after);
  const page = start < 0 ? [] : ids.slice(start, start + params.pageSize);
  const now = performance.now();
  const sessionRows = await Promise.all(page.map((id) => host.sessions.get(id).status(now, params.workerFigures)));
  const last = page.at(-1);
  const more = start >= 0 && start + params.pageSize < ids.length;
  return {
    ...(await stats.snapshot({ resetEventLoopDelay: false })),
    sessionRows,
    usage: host.usage.rows().filter((row) => peer.sees(row.tenant)),
    ...(params.history
      ? {
          history: stats.history
            .samples(params.historyAfter)
            .map((sample) => ({ ...sample, tokens: sample.tokens.filter((row) => peer.sees(row.tenant)) })),
        }
      : {}),
    endpoints: [...(host.gateway?.endpoints() ?? [])],
    ...(more && last ? { nextCursor: Buffer.from(last).toString("base64url") } : {}),
  };
}

function decodeCursor(cursor: string): string {
  const id = Buffer.from(cursor, "base64url").toString("utf8");
  if (!/^[0-9a-f-]{36}$/.test(id))
    throw invalidParams("cursor", "invalid cursor: pass a nextCursor from a previous _host/status answer");
  return id;
}
